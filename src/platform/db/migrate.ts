import { fileURLToPath } from 'node:url';
import type { Database } from './client.ts';
import { loadPglite, migrateNodePg, type NodePgDatabase, type PgliteDatabase } from './drizzle.ts';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../migrations', import.meta.url));

/** Applies every pending drizzle-kit migration; a no-op when the database is current. */
export async function runMigrations(database: Database): Promise<void> {
  await database.withMigrationLock(async (db) => {
    const options = { migrationsFolder: MIGRATIONS_FOLDER };
    if (database.kind === 'postgres') {
      await migrateNodePg(db as unknown as NodePgDatabase, options);
    } else {
      await loadPglite().migratePglite(db as unknown as PgliteDatabase, options);
    }
  });
}
