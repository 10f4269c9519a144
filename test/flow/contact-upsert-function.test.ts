import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.ts';
import { definitionsIn, definitionsOf } from '../helpers/database-functions.ts';

// The PL/pgSQL behind the contact upserts and the change feed has one source per file,
// src/flow/contacts/upsert-contact.sql and contact-sync.sql; the migrations only deploy them. The
// migrated database's functions must be exactly what each file creates: the file is run into a
// scratch schema inside a transaction that is rolled back, and Postgres's own rendering
// (pg_get_functiondef) of both is compared.
const SOURCES = [
  {
    file: new URL('../../src/flow/contacts/upsert-contact.sql', import.meta.url),
    functions: ['vetflow_audit_change', 'vetflow_match_contact', 'vetflow_upsert_contact'],
    edit: ["'name_not_applied_user_edited_in_flow'", "'name_kept'"],
  },
  {
    file: new URL('../../src/flow/contacts/contact-sync.sql', import.meta.url),
    functions: ['vetflow_contact_change', 'vetflow_contact_projection', 'vetflow_upsert_contacts'],
    edit: ["THEN 'deleted' END", "THEN 'removed' END"],
  },
] as const;

const test = await createTestDatabase();
afterAll(() => test.drop());
const db = test.database.db;

describe.each(SOURCES)('the database functions of $file.pathname', ({ file, functions, edit }) => {
  const source = readFileSync(file, 'utf8');

  it('are deployed exactly as their source file defines them', async () => {
    const expected = await definitionsOf(db, source, { functions });
    expect(expected.map((row) => row.name)).toEqual(functions);
    expect(await definitionsIn(db, 'public', { functions })).toEqual(expected);
  });

  it('would fail when the source changes without a migration', async () => {
    // Guards the test above against comparing two renderings that could never differ.
    const edited = source.replace(edit[0], edit[1]);
    expect(edited).not.toBe(source);
    expect(await definitionsIn(db, 'public', { functions })).not.toEqual(await definitionsOf(db, edited, { functions }));
  });
});
