import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createClinic } from '../../src/notes/clinics/clinics.service.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestDatabase, waitForLockWaiters } from '../helpers/database.ts';
import { definitionsIn, definitionsOf } from '../helpers/database-functions.ts';

// The triggers that raise a clinic's notes-list version (src/notes/store/note-list-version.sql):
// deployed as their source says, and raising it once per statement and clinic touched.
const test = await createTestDatabase();
afterAll(() => test.drop());
const db = test.database.db;

const source = readFileSync(new URL('../../src/notes/store/note-list-version.sql', import.meta.url), 'utf8');
const objects = {
  functions: ['vetflow_bump_note_list_version'],
  triggers: [
    'notes_list_version_after_delete',
    'notes_list_version_after_insert',
    'notes_list_version_after_truncate',
    'notes_list_version_after_update',
  ],
};

describe('note-list-version.sql', () => {
  it('is deployed exactly as the source file defines it', async () => {
    const expected = await definitionsOf(db, source, objects);
    expect(expected.map((row) => row.name).sort()).toEqual([...objects.functions, ...objects.triggers].sort());
    expect(await definitionsIn(db, 'public', objects)).toEqual(expected);
  });

  it.each([
    ['the function', 'SELECT clinic_id FROM old_notes UNION', 'SELECT clinic_id FROM new_notes UNION'],
    ['a trigger', 'AFTER TRUNCATE ON notes', 'BEFORE TRUNCATE ON notes'],
  ])('would fail when %s changes without a migration', async (_, from, to) => {
    const edited = source.replace(from, to);
    expect(edited).not.toBe(source);
    expect(await definitionsIn(db, 'public', objects)).not.toEqual(await definitionsOf(db, edited, objects));
  });
});

type Rows<T> = { rows: T[] };
const clinic = async (name: string) => (await createClinic({ name }, db)).clinic.id;
const [a, b, c] = [await clinic('A'), await clinic('B'), await clinic('C')];

async function versions(): Promise<Record<string, number>> {
  const { rows } = (await db.execute(sql`select clinic_id, version from note_list_versions`)) as unknown as Rows<{
    clinic_id: string;
    version: string;
  }>;
  return Object.fromEntries(rows.map((row) => [row.clinic_id, Number(row.version)]));
}

/** `count` notes for each clinic, in one INSERT ... SELECT. */
const insertNotes = (clinics: string[], count: number) =>
  db.execute(sql`
    insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds)
    select clinic_id, 'Nota ' || i, 'k', 'mp3', 1, 'x', 1
    from unnest(${`{${clinics.join(',')}}`}::uuid[]) as clinic_id, generate_series(1, ${count}) as i`);

describe('the notes-list version', () => {
  let before: Record<string, number>;
  beforeEach(async () => {
    before = await versions();
  });
  const raised = async () => {
    const after = await versions();
    return Object.fromEntries(Object.entries(after).map(([clinicId, version]) => [clinicId, version - (before[clinicId] ?? 0)]));
  };

  it('starts at 1 for a clinic whose notes change for the first time (no row reads as 0)', async () => {
    expect(before[a]).toBeUndefined();
    await insertNotes([a], 1);
    expect(await raised()).toEqual({ [a]: 1 });
  });

  it('rises once per statement and clinic: a multi-row insert, update or delete', async () => {
    await insertNotes([a, b], 50);
    expect(await raised()).toEqual({ [a]: 1, [b]: 1 });
    before = await versions();
    await db.execute(sql`update notes set name = name || '!' where clinic_id = ${a}`);
    expect(await raised()).toEqual({ [a]: 1, [b]: 0 });
    before = await versions();
    await db.execute(sql`delete from notes where name like 'Nota 1%'`);
    expect(await raised()).toEqual({ [a]: 1, [b]: 1 });
    before = await versions();
    // A statement that changes no note changes nothing.
    await db.execute(sql`update notes set name = 'x' where false`);
    expect(await raised()).toEqual({ [a]: 0, [b]: 0 });
  });

  it('rises for both clinics when a note moves between them', async () => {
    await insertNotes([c], 1);
    before = await versions();
    await db.execute(sql`update notes set clinic_id = ${b} where clinic_id = ${c}`);
    expect(await raised()).toEqual({ [a]: 0, [b]: 1, [c]: 1 });
  });

  it('lets a clinic be deleted with its notes (no version row is written for it)', async () => {
    const gone = await clinic('Gone');
    await insertNotes([gone], 3);
    await db.execute(sql`delete from clinics where id = ${gone}`);
    expect((await versions())[gone]).toBeUndefined();
    expect(await raised()).toEqual({ [a]: 0, [b]: 0, [c]: 0 });
  });

  it.runIf(test.url !== undefined)('does not deadlock an upload with a note completing in the same clinic', async () => {
    await insertNotes([a], 1);
    const [completing, uploading] = [new pg.Client({ connectionString: test.url }), new pg.Client({ connectionString: test.url })];
    await Promise.all([completing.connect(), uploading.connect()]);
    try {
      // A note completes: its update raises the version (and holds it to the end of the transaction)...
      await completing.query('begin');
      await completing.query(`update notes set transcription_status = 'completed' where clinic_id = $1`, [a]);
      // ...while an upload locks the clinic for its quota check and inserts its note...
      const upload = (async () => {
        await uploading.query('begin');
        await uploading.query('select 1 from clinics where id = $1 for update', [a]);
        await uploading.query(
          `insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds)
           values ($1, 'Nova', 'k', 'mp3', 1, 'x', 1)`,
          [a],
        );
        await uploading.query('commit');
      })();
      await waitForLockWaiters(completing, 1);
      // ...and the completion records its webhook event (a foreign key on the clinic).
      await completing.query(`insert into webhook_events (clinic_id, type, payload) values ($1, 'note.completed', '{}')`, [a]);
      await completing.query('commit');
      await upload;
      expect(await raised()).toMatchObject({ [a]: 3 });
    } finally {
      await Promise.all([completing.end(), uploading.end()]);
    }
  });

  it('rises for every clinic on a truncate', async () => {
    await db.execute(sql`truncate notes cascade`);
    expect(await raised()).toEqual({ [a]: 1, [b]: 1, [c]: 1 });
  });
});
