import { createRequire } from 'node:module';
import type * as PgliteModule from '@electric-sql/pglite';
import type * as PgTrgmModule from '@electric-sql/pglite/contrib/pg_trgm';
import type * as UnaccentModule from '@electric-sql/pglite/contrib/unaccent';
import type * as Core from 'drizzle-orm';
import type * as NodePgModule from 'drizzle-orm/node-postgres';
import type * as NodePgMigratorModule from 'drizzle-orm/node-postgres/migrator';
import type * as PgCore from 'drizzle-orm/pg-core';
import type * as PgliteDriverModule from 'drizzle-orm/pglite';
import type * as PgliteMigratorModule from 'drizzle-orm/pglite/migrator';

// The one place drizzle-orm is loaded: every other module imports drizzle from here (enforced by
// `npm run check:deps`, rule `drizzle-through-one-entry`). It loads drizzle's CommonJS build.
//
// Why: Node 24's ESM loader, for every `.js` file it resolves and again when it loads it, looks up
// the package scope (`getPackageScopeConfig`) and spreads the result, which JSON-parses the
// package's whole `exports` map each time. drizzle-orm ships 448 `.js` files and a 179 kB exports
// map: ~900 parses, 1.8 s of start-up and 169 MB of heap; after a GC the heap is back to 7 MB but
// the process keeps ~225 MB RSS. Its `.cjs` files take the CommonJS path, whose format comes from
// the extension: 0.15 s and +19 MB RSS. Measurements in docs/benchmarks.md ("Idle memory").
//
// One copy: nothing else imports drizzle-orm at run time (pg-boss and the rest do not depend on
// it), and the PGlite classes the pglite driver instantiates come from the same CommonJS build.
// `import.meta.url` also exists under drizzle-kit's loader (tsx), which reads the schema files.
const require = createRequire(import.meta.url);

const core: typeof Core = require('drizzle-orm');
const pgCore: typeof PgCore = require('drizzle-orm/pg-core');

export const {
  and,
  arrayContains,
  asc,
  count,
  desc,
  DrizzleQueryError,
  eq,
  exists,
  getTableColumns,
  gt,
  gte,
  ilike,
  inArray,
  isNotNull,
  isNull,
  lt,
  lte,
  ne,
  notExists,
  or,
  sql,
} = core;
export type DrizzleQueryError = Core.DrizzleQueryError;
export type { SQL } from 'drizzle-orm';

export const {
  bigint,
  bigserial,
  boolean,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} = pgCore;
export type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';

export const { drizzle: drizzleNodePg }: typeof NodePgModule = require('drizzle-orm/node-postgres');
export const { migrate: migrateNodePg }: typeof NodePgMigratorModule = require('drizzle-orm/node-postgres/migrator');
export type { NodePgDatabase } from 'drizzle-orm/node-postgres';

/** The embedded database's modules, loaded on first use (a Postgres deployment never needs them). */
export function loadPglite() {
  const { PGlite }: typeof PgliteModule = require('@electric-sql/pglite');
  const { pg_trgm }: typeof PgTrgmModule = require('@electric-sql/pglite/contrib/pg_trgm');
  const { unaccent }: typeof UnaccentModule = require('@electric-sql/pglite/contrib/unaccent');
  const { drizzle }: typeof PgliteDriverModule = require('drizzle-orm/pglite');
  const { migrate }: typeof PgliteMigratorModule = require('drizzle-orm/pglite/migrator');
  return { PGlite, pg_trgm, unaccent, drizzlePglite: drizzle, migratePglite: migrate };
}
export type { PGlite } from '@electric-sql/pglite';
export type { PgliteDatabase } from 'drizzle-orm/pglite';
