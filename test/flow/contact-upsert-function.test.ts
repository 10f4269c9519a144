import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.ts';

// The PL/pgSQL behind the contact upsert has one source, src/flow/contacts/upsert-contact.sql; the
// migrations only deploy it. The migrated database's functions must be exactly what that file
// creates: the file is run into a scratch schema inside a transaction that is rolled back, and
// Postgres's own rendering (pg_get_functiondef) of both is compared.
const SOURCE = new URL('../../src/flow/contacts/upsert-contact.sql', import.meta.url);
const FUNCTIONS = ['vetflow_audit_change', 'vetflow_upsert_contact'];

const test = await createTestDatabase();
afterAll(() => test.drop());
const db = test.database.db;

type Rows<T> = { rows: T[] };
const definitionsIn = async (run: typeof db, schema: string) => {
  const result = (await run.execute(sql`
    select p.proname as name, pg_get_functiondef(p.oid) as definition
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = ${schema} and p.proname in (${sql.join(
      FUNCTIONS.map((name) => sql`${name}`),
      sql`, `,
    )})
    order by p.proname`)) as unknown as Rows<{ name: string; definition: string }>;
  // Only the schema differs between the two: compare the rest.
  return result.rows.map((row) => ({ ...row, definition: row.definition.replaceAll(`${schema}.`, '') }));
};

class Rollback extends Error {}

/** What `source` would deploy: run into a scratch schema, read back, rolled back. */
async function definitionsOf(source: string) {
  let definitions: Awaited<ReturnType<typeof definitionsIn>> = [];
  await db
    .transaction(async (tx) => {
      await tx.execute(sql`create schema vetflow_expected`);
      await tx.execute(sql`set local search_path = vetflow_expected, public`);
      for (const statement of source.split('--> statement-breakpoint')) await tx.execute(sql.raw(statement));
      definitions = await definitionsIn(tx, 'vetflow_expected');
      throw new Rollback();
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error;
    });
  return definitions;
}

describe('the contact upsert function', () => {
  const source = readFileSync(SOURCE, 'utf8');

  it('is deployed exactly as its source file defines it', async () => {
    const expected = await definitionsOf(source);
    expect(expected.map((row) => row.name)).toEqual(FUNCTIONS);
    expect(await definitionsIn(db, 'public')).toEqual(expected);
  });

  it('would fail when the source changes without a migration', async () => {
    // Guards the test above against comparing two renderings that could never differ.
    const edited = source.replace("'name_not_applied_user_edited_in_flow'", "'name_kept'");
    expect(edited).not.toBe(source);
    expect(await definitionsIn(db, 'public')).not.toEqual(await definitionsOf(edited));
  });
});
