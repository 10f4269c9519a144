import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll } from 'vitest';
import { type AppInstance, buildApp } from '../../src/app.ts';
import type { NotesProviders } from '../../src/notes/notes.module.ts';
import { type Config, loadConfig } from '../../src/platform/config.ts';
import { type Database, DEFAULT_DATABASE_TIMEOUTS, openPostgres } from '../../src/platform/db/client.ts';
import type { JobDefinition } from '../../src/platform/jobs.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface TestApp {
  readonly app: AppInstance;
  readonly config: Config;
  readonly db: TestDatabase;
  /** Every log line the app wrote, as raw JSON text. */
  readonly logs: string[];
}

export interface TestAppOptions {
  env?: Record<string, string>;
  jobs?: readonly JobDefinition<any>[];
  startWorkers?: boolean;
  notesProviders?: NotesProviders;
}

/** The environment every test app starts from: quiet, fast job polling, no migrations (the database is migrated). */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    LOG_LEVEL: 'info',
    MIGRATE_ON_START: 'false',
    PUBLIC_BASE_URL: 'http://vetflow.test',
    JOB_POLLING_INTERVAL_SECONDS: '0.5',
    SHUTDOWN_TIMEOUT_MS: '3000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...extra,
  };
}

/**
 * The real app over this file's own isolated database. Closed (app, then database) after the file.
 * Call at the top level of a test file or in beforeAll.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-test-'));
  const config = loadConfig(testEnv({ DATA_DIR: dataDir, ...options.env }));
  const db = await createTestDatabase();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp(config, {
    database: db.database,
    logger: createLogger(config, sink),
    jobs: options.jobs,
    notesProviders: options.notesProviders,
  });
  if (options.startWorkers) await app.vetflow.jobs.startWorkers();
  afterAll(async () => {
    await app.close().catch(() => {});
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { app, config, db, logs };
}

/** Polls `check` until it returns a truthy value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * A second app process over the same database as `t`: its own pool on Postgres (as a second
 * server would have), the same embedded database otherwise. Closed after the file.
 */
export async function createSecondApp(t: TestApp): Promise<{ app: AppInstance; logs: string[] }> {
  const database: Database = t.db.url ? openPostgres(t.db.url, 3, DEFAULT_DATABASE_TIMEOUTS, { directUrl: t.db.directUrl }) : t.db.database;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp(t.config, { database, logger: createLogger(t.config, sink) });
  afterAll(async () => {
    await app.close().catch(() => {});
    if (database !== t.db.database) await database.close().catch(() => {});
  });
  return { app, logs };
}
