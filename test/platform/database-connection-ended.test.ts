import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { databaseTimeoutsOf, openPostgres } from '../../src/platform/db/client.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { isDatabaseUnavailable } from '../../src/platform/db/unavailable.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { eventually, testEnv } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { adminDatabaseUrl } from '../helpers/test-env.ts';

// The server ends a connection while the app holds it inside a transaction, between two
// statements: its idle-in-transaction timeout (25P03) or an administrator's pg_terminate_backend
// (57P01). pg reports that as an 'error' event on the client, which pg-pool does not listen to
// while the client is checked out: unhandled, it took the whole process down. The transaction must
// fail with an outage error instead, and the app keep serving. Real Postgres only.

const onPostgres = adminDatabaseUrl() !== undefined;

describe.runIf(onPostgres)('a connection the server ends inside a transaction', async () => {
  // A skipped suite is still collected: on the embedded database, set nothing up.
  if (!onPostgres) return;
  const escaped: unknown[] = [];
  const collect = (error: unknown) => escaped.push(error);
  process.on('uncaughtException', collect);
  process.on('unhandledRejection', collect);

  const testDb = await createTestDatabase();
  const config = loadConfig(
    testEnv({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'vetflow-ended-')),
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1000',
    }),
  );
  const database = openPostgres(testDb.url as string, 3, databaseTimeoutsOf(config));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp(config, { database, logger: createLogger(config, sink) });
  const keys = await createClinicWithKeys(testDb.database);
  const admin = new pg.Client({ connectionString: testDb.url });
  await admin.connect();
  afterAll(async () => {
    process.off('uncaughtException', collect);
    process.off('unhandledRejection', collect);
    await admin.end();
    await app.close().catch(() => {});
    await database.close().catch(() => {});
    await testDb.drop();
  });

  const listNotes = () => app.inject({ method: 'GET', url: `${PREFIX}/notes`, headers: { 'x-api-key': keys.admin } });

  /** A transaction that runs one statement, then idles until `ended` resolves, then runs another. */
  async function transactionEndedBy(end: (pid: number) => Promise<void>): Promise<unknown> {
    return database.db
      .transaction(async (tx) => {
        const result = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { rows: { pid: number }[] };
        await end(Number(result.rows[0]?.pid));
        // Whatever the server did has reached the client by now: its FATAL message, then the close.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.execute(sql`select 1`);
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
  }

  it.each([
    [
      'the idle-in-transaction timeout (25P03)',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      },
    ],
    [
      'pg_terminate_backend (57P01)',
      async (pid: number) => {
        await admin.query('select pg_terminate_backend($1)', [pid]);
      },
    ],
  ])('after %s: the transaction fails as an outage, nothing escapes, requests are served', async (_label, end) => {
    expect((await listNotes()).statusCode).toBe(200);
    const error = await transactionEndedBy(end);
    expect(error).toBeDefined();
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(escaped).toEqual([]);
    await eventually(async () => (await listNotes()).statusCode === 200, 10_000);
    expect(escaped).toEqual([]);
  });

  it('logs no error for it', () => {
    expect(logs.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
  });
});
