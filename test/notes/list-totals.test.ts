import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, testEnv } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote } from '../helpers/uploads.ts';

// GET /notes's `total` is counted once per clinic and filters and reused until a note of the clinic
// changes (docs/notes-reads.md, "Counts are cached"). No workers: nothing writes notes but the test.
const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');
const run = db.database.db;

type Server = Pick<typeof app, 'inject'>;
/** The list's meta, one note per page, so that any total above 1 is counted. */
const meta = async (query: string, server: Server = app, key = clinic.viewer) =>
  (await server.inject({ method: 'GET', url: `/notes/v1/notes?limit=1&${query}`, headers: { 'x-api-key': key } })).json().meta;
const total = async (query: string, server?: Server) => (await meta(query, server)).total;

/** Notes of `clinicId` in one INSERT, created `daysAgo` days ago. */
const insertNotes = (clinicId: string, names: string[], daysAgo = 0) =>
  run.execute(sql`
    insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds, created_at)
    select ${clinicId}, name, 'k', 'mp3', 1, 'x', 1, now() - ${daysAgo} * interval '1 day'
    from unnest(${`{${names.join(',')}}`}::text[]) as name`);

/**
 * Notes written with the triggers off (`session_replication_role = replica`), so the clinic's
 * version does not change: a list that does not show them reused a count, one that does counted.
 * Their names' words are written as the trigger would (name-words.sql), or a name search
 * could not find them at all.
 */
const insertUnseen = (clinicId: string, names: string[], daysAgo = 0) =>
  run.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(sql`
      with inserted as (
        insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds, created_at)
        select ${clinicId}, name, 'k', 'mp3', 1, 'x', 1, now() - ${daysAgo} * interval '1 day'
        from unnest(${`{${names.join(',')}}`}::text[]) as name
        returning clinic_id, created_at, id, name_folded, transcription_status
      ), words as (
        insert into note_name_words (clinic_id, word, created_at, note_id, name_folded, transcription_status)
        select clinic_id, word, created_at, id, name_folded, transcription_status from inserted, unnest(vetflow_name_words(name_folded)) as word
        returning clinic_id, word
      )
      insert into note_name_dictionary (clinic_id, word) select distinct clinic_id, word from words on conflict do nothing`);
  });

describe('GET /notes total', () => {
  it('is counted once and reused, whatever the page or limit, until a note of the clinic changes', async () => {
    await insertNotes(clinic.clinicId, ['Zeta Um', 'Zeta Dois', 'Zeta Três']);
    expect(await meta('name=zeta')).toEqual({ total: 3, page: 1, limit: 1, total_pages: 3, total_exact: true });
    await insertUnseen(clinic.clinicId, ['Zeta Quatro']);
    // Reused: a count would say 4.
    expect(await total('name=zeta')).toBe(3);
    expect(await total('name=zeta&page=2')).toBe(3);
    // Another kind of count is another entry: counted now.
    expect(await total('name=zeta&count=exact')).toBe(4);
    // Another clinic's notes changing leaves this clinic's counts alone.
    await insertNotes(other.clinicId, ['Zeta Outra']);
    await run.execute(sql`update notes set transcription_status = 'failed' where clinic_id = ${other.clinicId}`);
    expect(await total('name=zeta')).toBe(3);
    // Any write to the clinic's notes: the very next list counts again, and sees everything.
    await uploadNote(app, clinic.editor, { name: 'Zeta Cinco' });
    expect(await total('name=zeta')).toBe(5);
  });

  it.each([
    ['an upload', 'name=gama', async () => void (await uploadNote(app, clinic.editor, { name: 'Gama Nova' })), 4],
    ['a delete', 'name=gama', () => run.execute(sql`delete from notes where name = 'Gama Um'`), 2],
    [
      'a status change',
      'name=gama&transcription_status=pending',
      () => run.execute(sql`update notes set transcription_status = 'completed' where name = 'Gama Dois'`),
      2,
    ],
    ['a rename', 'name=gama', () => run.execute(sql`update notes set name = 'Outro' where name = 'Gama Três'`), 2],
  ])('is current right after %s', async (_, query, change, expected) => {
    await run.execute(sql`delete from notes where clinic_id = ${clinic.clinicId} and name like 'Gama%'`);
    await insertNotes(clinic.clinicId, ['Gama Um', 'Gama Dois', 'Gama Três']);
    expect(await total(query)).toBe(3);
    await change();
    expect(await total(query)).toBe(expected);
  });

  it('beyond the count limit, is counted again as soon as a note changes', async () => {
    const capped = await buildApp(loadConfig(testEnv({ NOTES_LIST_COUNT_LIMIT: '2', LOG_LEVEL: 'silent' })), { database: db.database });
    try {
      await insertNotes(clinic.clinicId, ['Omega Um', 'Omega Dois', 'Omega Três']);
      const beyond = { total: 2, page: 1, limit: 1, total_pages: 2, total_exact: false };
      expect(await meta('name=omega', capped)).toEqual(beyond);
      await insertUnseen(clinic.clinicId, ['Omega Quatro']);
      expect(await meta('name=omega', capped)).toEqual(beyond);
      expect(await meta('name=omega&count=exact', capped)).toMatchObject({ total: 4, total_exact: true });
      // Three of the four stop matching: exact at once (the TTL verdict cache kept the lower bound).
      await run.execute(sql`update notes set name = 'Outro' where name in ('Omega Um', 'Omega Dois', 'Omega Três')`);
      expect(await meta('name=omega', capped)).toEqual({ total: 1, page: 1, limit: 1, total_pages: 1, total_exact: true });
      expect(await meta('name=omega&count=exact', capped)).toMatchObject({ total: 1, total_exact: true });
    } finally {
      await capped.close();
    }
  });

  it('with `days`, is right as the clock moves, and reused until a note of the clinic changes', async () => {
    await insertNotes(clinic.clinicId, ['Delta Um', 'Delta Dois']);
    await insertNotes(clinic.clinicId, ['Delta Velho'], 40);
    // Two seconds inside the 30 days when inserted, outside them three seconds later.
    await run.execute(sql`
      insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds, created_at)
      values (${clinic.clinicId}, 'Delta Limite', 'k', 'mp3', 1, 'x', 1, now() - interval '30 days' + interval '2 seconds')`);
    expect(await total('name=delta&days=30')).toBe(3);
    expect(await total('name=delta&days=50')).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // The clock alone: the note at the edge has left the 30 days, with no write.
    expect(await total('name=delta&days=30')).toBe(2);
    // Reused: a count would say 3.
    await insertUnseen(clinic.clinicId, ['Delta Três']);
    expect(await total('name=delta&days=30')).toBe(2);
    // Any write to the clinic's notes: counted again.
    await insertNotes(clinic.clinicId, ['Delta Quatro']);
    expect(await total('name=delta&days=30')).toBe(4);
    expect(await total('name=delta&days=30&count=exact')).toBe(4);
  });
});
