import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { type ConstructorOptions, fromPglite } from 'pg-boss';
import type { Config } from '../config.ts';
import { type CacheInvalidation, embeddedInvalidation, postgresInvalidation } from './cache-invalidation.ts';
import { acquireDataDirLock } from './data-dir-lock.ts';
import { drizzleNodePg, loadPglite, type PGlite, type PgDatabase, type PgQueryResultHKT, sql } from './drizzle.ts';
import { GuardedPool, type PendingWork } from './guarded-pool.ts';
import { ProbeConnection } from './probe-connection.ts';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
/** A drizzle database or a transaction on it: every repo function takes one. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  readonly kind: 'postgres' | 'embedded';
  readonly db: Db;
  /** How pg-boss reaches the same database (its own pool on Postgres, the shared PGlite otherwise). */
  readonly bossOptions: ConstructorOptions;
  /**
   * Runs `fn` while holding the cluster-wide migration lock, with a database handle of its own on
   * which statements have no timeout (a migration may rightly take minutes; waiting for another
   * process's migration too).
   */
  withMigrationLock<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** Cache invalidations announced by any process on this database (`announce-invalidation.ts`). */
  readonly invalidation: CacheInvalidation;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The connection pool's figures (metrics); absent on the embedded database, which has none. */
  poolStats?(): { total: number; idle: number; waiting: number };
  /** A networked database's link, watched by DatabaseAvailability; absent on the embedded one. */
  readonly link?: DatabaseLink;
}

/** What DatabaseAvailability needs of a database reached over the network. */
export interface DatabaseLink extends PendingWork {
  /** One round trip on a connection of its own, within `timeoutMs`: rejects when it gets no answer. */
  probe(timeoutMs: number): Promise<void>;
}

/**
 * Bounds on every connection, so a database that is down or silently unreachable costs a request
 * seconds, not forever: establishing a connection (or waiting for a free one in the pool), a
 * statement on the server, a round trip on the client (a black-holed network never answers, so
 * only the client can give up), and a transaction left idle by a stuck caller.
 */
export interface DatabaseTimeouts {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  queryTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectTimeoutMs: 3_000,
  statementTimeoutMs: 5_000,
  queryTimeoutMs: 6_000,
  idleInTransactionTimeoutMs: 10_000,
};

// pg-boss's maintenance statements (archiving, deleting old jobs) may legitimately run longer than
// a request's, so its pool gets at least this long; connecting stays as bounded as ours.
const JOB_STATEMENT_TIMEOUT_MIN_MS = 60_000;

type DatabaseConfig = Pick<
  Config,
  | 'DATABASE_URL'
  | 'DATABASE_DIRECT_URL'
  | 'DATA_DIR'
  | 'DATABASE_POOL_MAX'
  | 'DATABASE_CONNECT_TIMEOUT_MS'
  | 'DATABASE_STATEMENT_TIMEOUT_MS'
  | 'DATABASE_QUERY_TIMEOUT_MS'
  | 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS'
>;

export function databaseTimeoutsOf(
  config: Omit<DatabaseConfig, 'DATABASE_URL' | 'DATABASE_DIRECT_URL' | 'DATA_DIR' | 'DATABASE_POOL_MAX'>,
): DatabaseTimeouts {
  return {
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
    idleInTransactionTimeoutMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.DATABASE_URL) {
    return openPostgres(config.DATABASE_URL, config.DATABASE_POOL_MAX, databaseTimeoutsOf(config), {
      directUrl: config.DATABASE_DIRECT_URL,
    });
  }
  return openEmbedded(path.resolve(config.DATA_DIR, 'pglite'));
}

// Arbitrary constant shared by every vetflow process: migrations never run twice at once.
const MIGRATION_LOCK_ID = 7_346_110_221;

// TCP keepalive starts probing a silent connection after this long (the kernel's default is two
// hours), so a socket whose peer vanished is eventually closed even when no statement runs on it.
const KEEPALIVE_INITIAL_DELAY_MS = 10_000;

export interface PostgresUrls {
  /**
   * The database itself, when `connectionString` is a transaction-mode pooler: what needs a session
   * of its own (migrations under their advisory lock, LISTEN) goes here. Absent: everything uses
   * `connectionString`, as a session of its own.
   */
  directUrl?: string;
}

/**
 * Postgres through a pool of `poolMax` connections to `connectionString`, plus pg-boss's pool of
 * 4, the LISTEN connection and the outage probe's (docs/operations.md, "Scaling out", counts them).
 */
export function openPostgres(
  connectionString: string,
  poolMax = 10,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  { directUrl }: PostgresUrls = {},
): Database {
  // Behind a transaction-mode pooler consecutive statements may run on different server sessions,
  // so nothing may live in one: statements run unnamed (unnamed-statements.ts), pg-boss polls
  // instead of LISTENing, and no timeout travels as a startup parameter (PgBouncer refuses the
  // connection: "unsupported startup parameter"); the server-side bounds are then the role's or the
  // pooler's, the client-side query timeout still holds.
  const pooled = directUrl !== undefined;
  const sessionUrl = directUrl ?? connectionString;
  const bounds = {
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    // A dead peer is noticed by the kernel too, not only by the next query's timeout.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
  };
  const pool = new GuardedPool({
    connectionString,
    max: poolMax,
    application_name: 'vetflow',
    ...bounds,
    ...(pooled
      ? { unnamedStatements: true }
      : { statement_timeout: timeouts.statementTimeoutMs, idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs }),
    query_timeout: timeouts.queryTimeoutMs,
  });
  // The probe asks the way the app's statements go: through the pooler, when there is one.
  const prober = new ProbeConnection(connectionString);
  const db = drizzleNodePg(pool, { schema, casing: 'snake_case' }) as unknown as Db;
  const invalidation = postgresInvalidation(sessionUrl, { connectTimeoutMs: timeouts.connectTimeoutMs });
  const jobStatementTimeoutMs = Math.max(timeouts.statementTimeoutMs, JOB_STATEMENT_TIMEOUT_MIN_MS);
  return {
    kind: 'postgres',
    db,
    bossOptions: {
      connectionString,
      max: 4,
      application_name: 'vetflow-jobs',
      connectionTimeoutMillis: timeouts.connectTimeoutMs,
      // pg-boss's statements are unnamed and its locks transaction-scoped: only its LISTEN needs a
      // session, so behind a pooler its workers poll (every JOB_POLLING_INTERVAL_SECONDS).
      useListenNotify: !pooled,
      ...(pooled
        ? {}
        : {
            options: `-c statement_timeout=${jobStatementTimeoutMs} -c idle_in_transaction_session_timeout=${timeouts.idleInTransactionTimeoutMs}`,
          }),
      // pg-boss hands its options to pg.Pool, which also takes the client-side bounds.
      ...({
        query_timeout: jobStatementTimeoutMs + 1_000,
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
      } as object),
    },
    async withMigrationLock(fn) {
      // Its own connection, without statement or query timeouts (see the interface).
      const client = new pg.Client({
        connectionString: sessionUrl,
        application_name: 'vetflow-migrate',
        connectionTimeoutMillis: timeouts.connectTimeoutMs,
      });
      client.on('error', () => {});
      await client.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
        return await fn(drizzleNodePg(client, { schema, casing: 'snake_case' }) as unknown as Db);
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
        await client.end().catch(() => {});
      }
    },
    invalidation,
    async ping() {
      await pool.query('select 1');
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    link: {
      probe: (timeoutMs) => prober.probe(timeoutMs),
      oldestPendingMs: () => pool.pendingWork.oldestPendingMs(),
      setDown: (down) => pool.pendingWork.setDown(down),
      onFault: (listener) => pool.pendingWork.onFault(listener),
    },
    async close() {
      prober.close();
      await invalidation.close();
      await pool.end();
    },
  };
}

/**
 * An embedded database: persisted under `dataDir`, or in memory when `dataDir` is undefined.
 * `loadDataDir` starts it from a PGlite data-directory tarball (`dumpDataDir`) instead of empty.
 */
export async function openEmbedded(dataDir: string | undefined, options: { loadDataDir?: Blob } = {}): Promise<Database> {
  let releaseLock = () => {};
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    // PGlite files can be open in one process only; a second opener would corrupt them.
    releaseLock = acquireDataDirLock(dataDir);
  }
  const { PGlite: PGliteClass, pg_trgm, unaccent, drizzlePglite } = loadPglite();
  let client: PGlite;
  try {
    // The extensions the migrations create (accent-insensitive name search); Postgres has them in contrib.
    client = await PGliteClass.create({
      ...(dataDir ? { dataDir } : {}),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
      extensions: { pg_trgm, unaccent },
    });
  } catch (error) {
    releaseLock();
    throw error;
  }
  const db = drizzlePglite(client, { schema, casing: 'snake_case' }) as unknown as Db;
  return {
    kind: 'embedded',
    db,
    bossOptions: { db: fromPglite(client), backend: 'pglite' },
    // One connection, one process: nothing else can migrate concurrently.
    withMigrationLock: (fn) => fn(db),
    invalidation: embeddedInvalidation(client),
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      try {
        if (!client.closed) await client.close();
      } finally {
        releaseLock();
      }
    },
  };
}
