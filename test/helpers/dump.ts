import type { Db } from '../../src/platform/db/client.ts';
import { sql } from '../../src/platform/db/drizzle.ts';

/**
 * Every row of every table of the database as text — ours (`public`) and pg-boss's (`pgboss`: job
 * payloads, outputs, schedules) — the way a `pg_dump` would hold them: what an erasure test searches
 * for what must be gone.
 */
export async function dumpDatabase(db: Db): Promise<string> {
  const tables = (await db.execute(sql`
    select quote_ident(table_schema) || '.' || quote_ident(table_name) as name from information_schema.tables
    where table_schema in ('public', 'pgboss') and table_type = 'BASE TABLE' order by 1`)) as unknown as { rows: { name: string }[] };
  if (tables.rows.length < 20) throw new Error(`only ${tables.rows.length} tables found: is this the migrated database?`);
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const result = (await db.execute(sql.raw(`select coalesce(string_agg(t::text, E'\\n'), '') as dump from ${name} t`))) as unknown as {
      rows: { dump: string }[];
    };
    parts.push(`-- ${name}\n${result.rows[0]!.dump}`);
  }
  return parts.join('\n');
}
