import { describe, expect, it } from 'vitest';
import { MOST_WALKED_WORDS } from '../../src/notes/reads/name-words.repo.ts';
import { NAME_WALK } from '../../src/notes/reads/note-list.repo.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';

// GET /notes with a name: the page comes from the walk of one search word's dictionary words
// (name-words.repo.ts: one word, or several merged), or — for a search word that more than
// MOST_WALKED_WORDS words of the clinic contain — from a bounded walk of the list's index, a second
// longer walk, or the trigram index for the notes older than the walk (note-list.repo.ts notePage).
// Each must give exactly what one `order by created_at desc, id desc` over every matching note gives.
// No workers: nothing writes notes but the test.
const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');
const run = db.database.db;

// Enough notes that every walk stops at its bound: NAME_WALK.most + NAME_WALK.first + some.
const NOTES = NAME_WALK.first + NAME_WALK.most + 2_000;
// Eight notes share each created_at (ties broken by id), which carries a microsecond part (a
// walk's last place must come back to the microsecond). Names by position, newest first:
// - every 400th "Maria Conceição Silva" (~5 in the first walk: the second walk finds the rest);
// - every 3rd "João Galvão" (dense: the first walk is enough);
// - a tie group near the end "Xavier Quaresma" (none in either walk: the trigram index);
// - every 400th "Rui Sparse" up to the 6,000th, then a group near the end (the first walk, the
//   second, then the trigram index for the rest);
// - every 50th "Bz<n> Ana Silva Silva", n one of MOST_WALKED_WORDS + 6 words (a search for `z`
//   is more words than a walk takes: the list's index, as `rui sparse` would be without words);
// - the rest "Filler Costa"; one in 7 pending.
await run.execute(sql`
  insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds, transcription_status, created_at)
  select ${clinic.clinicId},
         case when i % 400 = 7 then 'Maria Conceição Silva'
              when i between ${NOTES - 120} and ${NOTES - 105} then 'Xavier Quaresma'
              when (i % 400 = 9 and i < 6000) or i between ${NOTES - 100} and ${NOTES - 90} then 'Rui Sparse'
              when i % 50 = 1 then 'Bz' || (i / 50) % ${MOST_WALKED_WORDS + 6} || ' Ana Silva Silva'
              when i % 3 = 0 then 'João Galvão'
              else 'Filler Costa' end,
         'k', 'mp3', 1, 'x', 1,
         case when i % 7 = 0 then 'pending' else 'completed' end,
         timestamptz '2026-11-01 12:00:00.123456+00' - (i / 8) * interval '1 minute'
  from generate_series(1, ${NOTES}) as i`);
// Another clinic's notes of the same names, newer: never listed.
await run.execute(sql`
  insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds, created_at)
  select ${other.clinicId}, name, 'k', 'mp3', 1, 'x', 1, timestamptz '2026-11-02 00:00:00+00'
  from unnest(array['Xavier Quaresma', 'Maria Conceição Silva', 'João Galvão']) as name`);
await run.execute(sql`analyze notes`);

/** What the list must answer: every note whose folded name contains the folded text (on the fly, not the stored fold), sorted, the page cut out. */
async function expected(query: { name?: string; status?: string; from?: string; to?: string; limit: number; page: number }) {
  const result = (await run.execute(sql`
    select id from notes
    where clinic_id = ${clinic.clinicId}
      and (${query.name ?? null}::text is null or strpos(vetflow_fold(name), vetflow_fold(${query.name ?? null})) > 0)
      and (${query.status ?? null}::text is null or transcription_status = ${query.status ?? null})
      and (${query.from ?? null}::date is null or created_at >= ${query.from ?? null}::date)
      and (${query.to ?? null}::date is null or created_at < ${query.to ?? null}::date + 1)
    order by created_at desc, id desc
    limit ${query.limit} offset ${(query.page - 1) * query.limit}`)) as unknown as { rows: { id: string }[] };
  return result.rows.map((row) => row.id);
}

async function listed(query: { name?: string; status?: string; from?: string; to?: string; limit: number; page: number }) {
  const params = new URLSearchParams({ limit: String(query.limit), page: String(query.page) });
  if (query.name) params.set('name', query.name);
  if (query.status) params.set('transcription_status', query.status);
  if (query.from) params.set('from', query.from);
  if (query.to) params.set('to', query.to);
  const response = await app.inject({ method: 'GET', url: `/notes/v1/notes?${params}`, headers: { 'x-api-key': clinic.viewer } });
  expect(response.statusCode).toBe(200);
  return response.json().data.map((note: { id: string }) => note.id) as string[];
}

describe('GET /notes?name=', () => {
  it.each([
    // Dense: the first walk.
    { name: 'joao', limit: 10, page: 1 },
    { name: 'JOÃO GALV', limit: 100, page: 7 },
    // ~5 in the first walk, the rest in the second; a page that starts in one and ends in the other.
    { name: 'maria conceicao silva', limit: 10, page: 1 },
    { name: 'ção silva', limit: 4, page: 2 },
    { name: 'conceição', limit: 10, page: 5 },
    // All three: 5 in the first walk, 10 in the second, the rest by trigram.
    { name: 'rui sparse', limit: 10, page: 2 },
    { name: 'sparse', limit: 7, page: 3 },
    // Past both walks: the trigram index, from the last note walked (its tie group included).
    { name: 'xavier', limit: 10, page: 1 },
    { name: 'xavier quaresma', limit: 5, page: 2 },
    { name: 'quaresma', limit: 100, page: 1 },
    { name: 'maria', limit: 100, page: 1 },
    // Pages past the end.
    { name: 'quaresma', limit: 10, page: 3 },
    { name: 'maria silva', limit: 10, page: 2 },
    { name: 'nobody', limit: 10, page: 1 },
    // With the other filters, which bound every walk.
    { name: 'quaresma', status: 'pending', limit: 10, page: 1 },
    { name: 'silva', status: 'pending', limit: 10, page: 2 },
    { name: 'xavier', from: '2026-10-01', limit: 10, page: 1 },
    { name: 'maria', from: '2026-10-20', to: '2026-10-25', limit: 10, page: 1 },
    // LIKE's wildcards are literal.
    { name: 'x_vier', limit: 10, page: 1 },
    { name: 'silva_', limit: 10, page: 1 },
    // Several dictionary words merged (`ao`: joao, galvao, conceicao; `a`: most of them), deep pages.
    { name: 'ao', limit: 10, page: 40 },
    { name: 'a', limit: 100, page: 30 },
    { name: 'ao galv', limit: 10, page: 3 },
    { name: 'ao', status: 'pending', from: '2026-10-20', limit: 10, page: 2 },
    // A middle word is a whole word; a word twice in a name is one entry.
    { name: 'ana silva silva', limit: 10, page: 2 },
    { name: 'a silva s', limit: 10, page: 1 },
    { name: 'silva silva', limit: 10, page: 4 },
    { name: 'maria conceição silva', status: 'completed', to: '2026-10-25', limit: 10, page: 2 },
    // More words than a walk takes (`z`, `bz`): the list's index.
    { name: 'z', limit: 10, page: 1 },
    { name: 'bz', limit: 10, page: 3 },
    { name: 'z ana', limit: 10, page: 2 },
  ])(
    '$name (limit $limit, page $page, status $status, from $from, to $to): the same notes in the same order as sorting every match',
    async (query) => {
      const want = await expected(query);
      expect(await listed(query)).toEqual(want);
    },
  );

  it.each([
    { limit: 10, page: 2_300 },
    { status: 'pending', limit: 100, page: 3 },
    { from: '2026-10-20', to: '2026-10-25', limit: 7, page: 40 },
  ])(
    'without a name, a later page (limit $limit, page $page, status $status, from $from): the same notes as sorting them all',
    async (query) => {
      expect(await listed(query)).toEqual(await expected(query));
    },
  );

  it('finds notes in each of its ways, so each is tested above', async () => {
    // The counts the cases above rely on: the rare name lies beyond both walks, the sparse one has
    // fewer than a page within the first walk but more than a page in all.
    const positions = (await run.execute(sql`
      select name, min(n) as first, count(*) as notes from (
        select name, row_number() over (order by created_at desc, id desc) as n from notes where clinic_id = ${clinic.clinicId}
      ) ordered group by name`)) as unknown as { rows: { name: string; first: string; notes: string }[] };
    const byName = Object.fromEntries(positions.rows.map((row) => [row.name, { first: Number(row.first), notes: Number(row.notes) }]));
    expect(byName['Xavier Quaresma']!.first).toBeGreaterThan(NAME_WALK.first + NAME_WALK.most);
    expect(byName['Maria Conceição Silva']!.notes).toBeGreaterThan(10 * 5);
    expect(NAME_WALK.first / 400).toBeLessThan(10);
  });
});
