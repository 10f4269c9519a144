import { fileURLToPath } from 'node:url';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Database } from './client.ts';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../migrations', import.meta.url));

/** Applies every pending drizzle-kit migration; a no-op when the database is current. */
export async function runMigrations(database: Database): Promise<void> {
  await database.withMigrationLock(async (db) => {
    const options = { migrationsFolder: MIGRATIONS_FOLDER };
    if (database.kind === 'postgres') {
      await migrateNodePg(db as unknown as NodePgDatabase, options);
    } else {
      await migratePglite(db as unknown as PgliteDatabase, options);
    }
  });
}
