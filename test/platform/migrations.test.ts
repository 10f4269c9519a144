import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, openEmbedded, openPostgres } from '../../src/platform/db/client.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { MIGRATIONS_FOLDER, runMigrations } from '../../src/platform/db/migrate.ts';
import { createEmptyPostgresDatabase } from '../helpers/database.ts';

const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] };

// An empty database of the kind this run targets: real Postgres when a URL is configured.
const empty = await createEmptyPostgresDatabase();
const database: Database = empty ? openPostgres(empty.url, 4) : await openEmbedded(undefined);
afterAll(async () => {
  await database.close();
  await empty?.drop();
});

async function appliedCount(): Promise<number> {
  const result = await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
  return (result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? -1;
}

describe(`migrations on ${empty ? 'Postgres' : 'the embedded database'}`, () => {
  it('apply cleanly to an empty database', async () => {
    await runMigrations(database);
    expect(journal.entries.length).toBeGreaterThan(0);
    expect(await appliedCount()).toBe(journal.entries.length);
    const tables = await database.db.execute(sql`select to_regclass('public.app_settings') as t`);
    expect((tables as unknown as { rows: { t: string | null }[] }).rows[0]?.t).toBe('app_settings');
  });

  it('are a no-op on restart, even when two processes start at once', async () => {
    await Promise.all([runMigrations(database), runMigrations(database)]);
    expect(await appliedCount()).toBe(journal.entries.length);
  });
});
