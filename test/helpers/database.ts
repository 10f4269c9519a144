import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, type Db, DEFAULT_DATABASE_TIMEOUTS, openEmbedded, openPostgres } from '../../src/platform/db/client.ts';
import type { SQL } from '../../src/platform/db/drizzle.ts';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { adminDatabaseUrl, directDatabaseUrl, withDatabaseName } from './test-env.ts';

export interface TestDatabase {
  readonly database: Database;
  /** Connection URL on real Postgres; undefined for the embedded database. */
  readonly url: string | undefined;
  /** The same database past the pooler when `url` is a transaction-mode pooler's (DATABASE_DIRECT_URL). */
  readonly directUrl: string | undefined;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database owned by one test file: a template clone, or a new in-memory PGlite
 * started from the migrated data directory global-setup dumped.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = adminDatabaseUrl();
  const template = inject('templateDatabase');
  if (!adminUrl || !template) {
    const database = await openEmbedded(undefined, { loadDataDir: migratedEmbeddedState() });
    // Without the run's global setup (no tarball), migrate here.
    if (!inject('embeddedTemplate')) await runMigrations(database);
    return { database, url: undefined, directUrl: undefined, drop: () => database.close() };
  }
  const name = `vetflow_t_${randomBytes(6).toString('hex')}`;
  const direct = directDatabaseUrl();
  const serverUrl = direct ?? adminUrl;
  await adminQuery(serverUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`);
  const url = withDatabaseName(adminUrl, name);
  const directUrl = direct ? withDatabaseName(direct, name) : undefined;
  const database = openPostgres(url, 5, DEFAULT_DATABASE_TIMEOUTS, { directUrl });
  return {
    database,
    url,
    directUrl,
    async drop() {
      await database.close().catch(() => {});
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** How a server process started by a test reaches `db`: DATABASE_URL, and DATABASE_DIRECT_URL behind a pooler. */
export function databaseEnv(db: Pick<TestDatabase, 'url' | 'directUrl'>): Record<string, string> {
  return { DATABASE_URL: db.url ?? '', ...(db.directUrl ? { DATABASE_DIRECT_URL: db.directUrl } : {}) };
}

let embeddedState: Blob | undefined;

/** The migrated embedded database global-setup dumped, read once per test file. */
function migratedEmbeddedState(): Blob | undefined {
  const tarball = inject('embeddedTemplate');
  if (!tarball) return undefined;
  embeddedState ??= new Blob([new Uint8Array(readFileSync(tarball))]);
  return embeddedState;
}

/** The rows a raw SQL query answers, on either database (or inside a transaction). */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** An empty database with nothing in it (no migrations): on Postgres only. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const adminUrl = adminDatabaseUrl();
  if (!adminUrl) return undefined;
  const name = `vetflow_e_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  return {
    url: withDatabaseName(adminUrl, name),
    drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function adminQuery(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Waits until `count` other sessions of this database wait for a lock. */
export async function waitForLockWaiters(client: pg.Client, count: number) {
  // Up to ~15 s: a request reaches its lock in milliseconds, but CI machines shared by several
  // suites (the pooler stage ran at a load of 25 on 2 cores) took longer than the 5 s this was.
  for (let i = 0; i < 750; i++) {
    const { rows } = await client.query<{ waiting: number }>(
      `select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if ((rows[0]?.waiting ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`fewer than ${count} sessions ever waited for a lock`);
}

/**
 * The moment simultaneous requests race, made to happen: another session takes a row lock with
 * `lockStatement`, `requests` start, and once `waiters` sessions queue behind that lock it is
 * released and what the requests answer is returned. Postgres only (`url`).
 */
export async function raceBehindLock<T>(
  url: string,
  lockStatement: string,
  params: unknown[],
  waiters: number,
  requests: () => Promise<T>,
): Promise<T> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query(lockStatement, params);
    const pending = requests();
    // Should waiting fail, the requests still settle once the lock goes with this session.
    pending.catch(() => undefined);
    await waitForLockWaiters(holder, waiters);
    await holder.query('commit');
    return await pending;
  } finally {
    await holder.end();
  }
}
