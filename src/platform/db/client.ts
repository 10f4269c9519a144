import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { type ConstructorOptions, fromPglite } from 'pg-boss';
import type { Config } from '../config.ts';
import { acquireDataDirLock } from './data-dir-lock.ts';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
/** A drizzle database or a transaction on it: every repo function takes one. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  readonly kind: 'postgres' | 'embedded';
  readonly db: Db;
  /** How pg-boss reaches the same database (its own pool on Postgres, the shared PGlite otherwise). */
  readonly bossOptions: ConstructorOptions;
  /** Runs `fn` while holding the cluster-wide migration lock. */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function openDatabase(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'DATABASE_POOL_MAX'>): Promise<Database> {
  if (config.DATABASE_URL) return openPostgres(config.DATABASE_URL, config.DATABASE_POOL_MAX);
  return openEmbedded(path.resolve(config.DATA_DIR, 'pglite'));
}

// Arbitrary constant shared by every vetflow process: migrations never run twice at once.
const MIGRATION_LOCK_ID = 7_346_110_221;

export function openPostgres(connectionString: string, poolMax = 10): Database {
  const pool = new pg.Pool({ connectionString, max: poolMax, application_name: 'vetflow' });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = drizzleNodePg(pool, { schema, casing: 'snake_case' }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    bossOptions: { connectionString, max: 4, application_name: 'vetflow-jobs' },
    async withMigrationLock(fn) {
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
        return await fn();
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
        client.release();
      }
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      await pool.end();
    },
  };
}

/** An embedded database: persisted under `dataDir`, or in memory when `dataDir` is undefined. */
export async function openEmbedded(dataDir: string | undefined): Promise<Database> {
  let releaseLock = () => {};
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    // PGlite files can be open in one process only; a second opener would corrupt them.
    releaseLock = acquireDataDirLock(dataDir);
  }
  let client: PGlite;
  try {
    // The extensions the migrations create (accent-insensitive name search); Postgres has them in contrib.
    client = await PGlite.create({ ...(dataDir ? { dataDir } : {}), extensions: { pg_trgm, unaccent } });
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
    withMigrationLock: (fn) => fn(),
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
