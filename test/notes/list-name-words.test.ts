import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { rowsOf } from '../helpers/database.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';

// note_name_words and note_name_dictionary (name-words.sql) are what a name search reads
// (name-words.repo.ts): after every kind of write to notes they must say exactly what the notes'
// folded names say, or a search would miss a note (or keep a patient's name after an erasure).
const { db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');
const run = db.database.db;

/** The entries and dictionary as kept, and as the notes say they should be. */
async function keptAndExpected() {
  const kept = await rowsOf<{ entry: string }>(
    run,
    sql`
    select concat_ws('|', clinic_id, word, created_at, note_id, name_folded, transcription_status) as entry from note_name_words order by 1`,
  );
  const expected = await rowsOf<{ entry: string }>(
    run,
    sql`
    select concat_ws('|', clinic_id, word, created_at, id, name_folded, transcription_status) as entry
    from notes, unnest(array(select distinct w from unnest(string_to_array(name_folded, ' ')) as w where w <> '')) as word order by 1`,
  );
  const dictionary = await rowsOf<{ entry: string }>(
    run,
    sql`select concat_ws('|', clinic_id, word) as entry from note_name_dictionary order by 1`,
  );
  const words = await rowsOf<{ entry: string }>(
    run,
    sql`select distinct concat_ws('|', clinic_id, word) as entry from note_name_words order by 1`,
  );
  return { kept, expected, dictionary, words };
}

async function expectInStep() {
  const { kept, expected, dictionary, words } = await keptAndExpected();
  expect(kept).toEqual(expected);
  expect(dictionary).toEqual(words);
}

const insert = (clinicId: string, names: string[]) =>
  rowsOf<{ id: string }>(
    run,
    sql`
    insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds, created_at)
    select ${clinicId}, name, 'k', 'mp3', 1, 'x', 1, now() - random() * interval '30 days'
    from unnest(${`{${names.map((name) => `"${name}"`).join(',')}}`}::text[]) as name returning id`,
  );

describe('the words of the notes’ names', () => {
  it('follow every insert, name change, status change and deletion, in the same statement', async () => {
    const [rex, , lonely] = await insert(clinic.clinicId, ['Rex  Silva Silva', 'Bolinha Silva', 'Único Raríssimo', ' ']);
    await insert(other.clinicId, ['Rex Souza']);
    await expectInStep();
    expect(
      await rowsOf(run, sql`select word from note_name_dictionary where clinic_id = ${clinic.clinicId} and word = 'unico'`),
    ).toHaveLength(1);
    // A name changed: its old words go (from the dictionary too, when no other note holds them).
    await run.execute(sql`update notes set name = 'Max Silva' where id = ${rex!.id}`);
    await expectInStep();
    expect(await rowsOf(run, sql`select word from note_name_dictionary where clinic_id = ${clinic.clinicId} and word = 'rex'`)).toEqual([]);
    // A status change is written on the entries; a change of neither leaves them.
    await run.execute(sql`update notes set transcription_status = 'failed' where clinic_id = ${clinic.clinicId}`);
    await run.execute(sql`update notes set attempts = attempts + 1 where clinic_id = ${clinic.clinicId}`);
    await expectInStep();
    // Deleted: its words go, and the dictionary's words only it held.
    await run.execute(sql`delete from notes where id = ${lonely!.id}`);
    await expectInStep();
    expect(await rowsOf(run, sql`select word from note_name_dictionary where word in ('unico', 'rarissimo')`)).toEqual([]);
    // Both in one statement (a name swapped between two notes), then the other clinic deleted whole.
    await run.execute(sql`update notes set name = case when name = 'Max Silva' then 'Bolinha Silva' else 'Max Silva' end
      where clinic_id = ${clinic.clinicId}`);
    await expectInStep();
    await run.execute(sql`delete from clinics where id = ${other.clinicId}`);
    await expectInStep();
    expect(await rowsOf(run, sql`select word from note_name_dictionary where word = 'souza'`)).toEqual([]);
  });
});
