import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { databaseTimeoutsOf, openPostgres } from '../../src/platform/db/client.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { defineJob } from '../../src/platform/jobs.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { eventually, testEnv } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { adminDatabaseUrl } from '../helpers/test-env.ts';

// The app reaches Postgres through a TCP proxy of the test's own that can refuse connections (a
// server that is down) or black-hole them (a partition). Requests must get 503 + Retry-After
// within seconds, the log must say so once per transition, jobs must wait rather than burn their
// retries, and everything must recover. Real Postgres only: the embedded database has no network.

const onPostgres = adminDatabaseUrl() !== undefined;

describe.runIf(onPostgres)('a database that refuses or black-holes connections', async () => {
  // A skipped suite is still collected: on the embedded database, set nothing up (the file reports as skipped).
  if (!onPostgres) return;
  const testDb = await createTestDatabase();
  const { proxy, url: proxiedUrl } = await TcpProxy.inFrontOf(testDb.url as string);

  const config = loadConfig(
    testEnv({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'vetflow-outage-')),
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_STATEMENT_TIMEOUT_MS: '1500',
      DATABASE_QUERY_TIMEOUT_MS: '2000',
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '5000',
    }),
  );
  const database = openPostgres(proxiedUrl, 5, databaseTimeoutsOf(config));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });

  // A job that queries the database and, on its first run, waits for the test to cut the network.
  let runs = 0;
  let releaseFirstRun: () => void = () => {};
  const firstRunMayQuery = new Promise<void>((resolve) => {
    releaseFirstRun = resolve;
  });
  let firstRunStarted: () => void = () => {};
  const firstRunWaiting = new Promise<void>((resolve) => {
    firstRunStarted = resolve;
  });
  const probeJob = defineJob({
    name: 'test.outage-probe',
    payload: z.object({}),
    // No retry at all: a failed attempt during the outage would fail the job for good.
    queue: { retryLimit: 0, expireInSeconds: 60 },
    async handle() {
      runs += 1;
      if (runs === 1) {
        firstRunStarted();
        await firstRunMayQuery;
      }
      await database.db.execute(sql`select 1`);
    },
  });

  const app = await buildApp(config, { database, logger: createLogger(config, sink), jobs: [probeJob] });
  await app.vetflow.jobs.startWorkers();
  const keys = await createClinicWithKeys(testDb.database);
  afterAll(async () => {
    await proxy.pass();
    await app.close().catch(() => {});
    await database.close().catch(() => {});
    await proxy.close();
    await testDb.drop();
  });

  const listNotes = () => app.inject({ method: 'GET', url: `${PREFIX}/notes`, headers: { 'x-api-key': keys.admin } });
  const lines = (message: string) => logs.filter((line) => line.includes(`"msg":"${message}`));
  const errorLines = () => logs.filter((line) => /"level":(50|60)/.test(line));

  async function expectFast503s(budgetMs: number) {
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 12 }, () => listNotes()));
    expect(Date.now() - started).toBeLessThan(budgetMs);
    for (const response of responses) {
      expect(response.statusCode, response.body).toBe(503);
      expect(response.json()).toMatchObject({ error: 'service_unavailable', code: 'SERVICE_UNAVAILABLE' });
      expect(response.headers['retry-after']).toBe('5');
      expect(response.headers['x-request-id']).toBe(response.json().request_id);
    }
  }

  it('serves while the database answers', async () => {
    expect((await listNotes()).statusCode).toBe(200);
  });

  it('sets the statement and idle-in-transaction timeouts on every session, pg-boss included', async () => {
    const settings = sql`select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle`;
    const ours = (await database.db.execute(settings)) as unknown as { rows: { statement: string; idle: string }[] };
    expect(ours.rows[0]).toEqual({ statement: '1500ms', idle: '5s' });
    const boss = await app.vetflow.jobs.boss
      .getDb()
      .executeSql(
        "select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle",
      );
    expect(boss.rows[0]).toEqual({ statement: '1min', idle: '5s' });
  });

  it('answers 503 with Retry-After at once when connections are refused, and recovers', async () => {
    await proxy.refuse();
    await expectFast503s(4_000);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    await eventually(async () => lines('database unreachable').length === 1, 5_000);
    await proxy.pass();
    await eventually(async () => (await listNotes()).statusCode === 200, 10_000);
    await eventually(async () => lines('database reachable again').length === 1, 10_000);
  });

  it('answers 503 within seconds when the network black-holes, and recovers', async () => {
    await proxy.blackhole();
    // Connect timeout (1 s) for new connections, query timeout (2 s) for pooled ones: never hung.
    await expectFast503s(6_000);
    await eventually(async () => lines('database unreachable').length === 2, 8_000);
    await proxy.pass();
    await eventually(async () => (await listNotes()).statusCode === 200, 15_000);
    await eventually(async () => lines('database reachable again').length === 2, 15_000);
  });

  it('logs each outage as one warning each way, never an error or a stack per request', () => {
    expect(errorLines()).toEqual([]);
    expect(logs.filter((line) => line.includes('"stack"'))).toEqual([]);
    for (const line of [...lines('database unreachable'), ...lines('database reachable again')]) expect(line).toContain('"level":40');
  });

  it('lets a job wait out an outage and run again, without spending a retry', async () => {
    const jobId = await app.vetflow.jobs.send(probeJob, {});
    await firstRunWaiting;
    await proxy.refuse();
    releaseFirstRun();
    await eventually(async () => lines('database unreachable').length === 3, 8_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(runs).toBe(1);
    await proxy.pass();
    const state = await eventually(async () => {
      const result = await testDb.database.db.execute(sql`select state from pgboss.job where id = ${jobId}`);
      const row = (result as unknown as { rows: { state: string }[] }).rows[0];
      return row && ['completed', 'failed'].includes(row.state) ? row.state : undefined;
    }, 20_000);
    expect(state).toBe('completed');
    expect(runs).toBe(2);
    expect(errorLines()).toEqual([]);
  });
});
