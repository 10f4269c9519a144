import { sql } from '../../src/platform/db/drizzle.ts';
import type { TestDatabase } from './database.ts';

// A database function's source file is the truth and the migrations only deploy it
// (CONTRIBUTING.md, "Database functions"). These read back what a source would deploy and what is
// deployed, in Postgres's own rendering (pg_get_functiondef, pg_get_triggerdef), for a test to
// compare: a source changed without a migration then fails its test.

type Db = TestDatabase['database']['db'];
type Rows<T> = { rows: T[] };
export interface DeployedObjects {
  functions: readonly string[];
  /** Triggers by name (on tables of `public`: a source's CREATE TRIGGER replaces them in the scratch run). */
  triggers?: readonly string[];
}
export type Definitions = { name: string; definition: string }[];

const names = (list: readonly string[]) =>
  sql.join(
    list.map((name) => sql`${name}`),
    sql`, `,
  );

/** The definitions of `objects` as `schema` holds them, without the schema's name (only it differs). */
export async function definitionsIn(db: Db, schema: string, { functions, triggers = [] }: DeployedObjects): Promise<Definitions> {
  // '' keeps `in (...)` valid when there are no triggers; no trigger has that name.
  const result = (await db.execute(sql`
    select p.proname as name, pg_get_functiondef(p.oid) as definition
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = ${schema} and p.proname in (${names(functions)})
    union all
    select t.tgname, pg_get_triggerdef(t.oid) from pg_trigger t
    where t.tgname in (${names([...triggers, ''])})
    order by 1`)) as unknown as Rows<{ name: string; definition: string }>;
  // A trigger's table stays in public (always written qualified) while its function moves.
  return result.rows.map((row) => ({ ...row, definition: row.definition.replaceAll(`${schema}.`, '').replaceAll('public.', '') }));
}

class Rollback extends Error {}

/** What `source` would deploy: run into a scratch schema, read back, rolled back. */
export async function definitionsOf(db: Db, source: string, objects: DeployedObjects): Promise<Definitions> {
  let definitions: Definitions = [];
  await db
    .transaction(async (tx) => {
      await tx.execute(sql`create schema vetflow_expected`);
      await tx.execute(sql`set local search_path = vetflow_expected, public`);
      for (const statement of source.split('--> statement-breakpoint')) await tx.execute(sql.raw(statement));
      definitions = await definitionsIn(tx as unknown as Db, 'vetflow_expected', objects);
      throw new Rollback();
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error;
    });
  return definitions;
}
