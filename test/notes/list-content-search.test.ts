import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTENT_QUERY_MAX_CHARS } from '../../src/notes/reads/content-query.ts';
import { CONTENT_WALK } from '../../src/notes/reads/content-search.repo.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { definitionsIn, definitionsOf } from '../helpers/database-functions.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';

// GET /notes?q=: the text of every section (as it is now) and the patient's name, through
// note_search_documents (kept by src/notes/reads/note-search.sql). Notes are written with SQL, as
// the worker writes them: the triggers are what keeps the documents, whoever writes.
const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');
const run = db.database.db;

interface Written {
  name: string;
  sections: Record<string, string>;
  day: string;
  externalId?: string;
  status?: string;
}

async function write(clinicId: string, note: Written): Promise<string> {
  const result = (await run.execute(sql`
    insert into notes (clinic_id, name, external_id, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds, transcription_status, created_at)
    values (${clinicId}, ${note.name}, ${note.externalId ?? null}, 'k', 'mp3', 1, 'x', 1, ${note.status ?? 'completed'}, ${`${note.day}T12:00:00Z`}::timestamptz)
    returning id`)) as unknown as { rows: { id: string }[] };
  const id = result.rows[0]!.id;
  let position = 0;
  for (const [label, content] of Object.entries(note.sections)) {
    position += 1;
    await run.execute(sql`
      insert into note_sections (note_id, label, title, content, "order", position)
      values (${id}, ${label}, ${label}, ${content}, ${String(position)}, ${position})`);
  }
  return id;
}

const thor1 = await write(clinic.clinicId, {
  name: 'Thor',
  externalId: 'pet-1',
  day: '2026-10-01',
  sections: {
    anamnese: 'Tutor relata que o cão vomitou duas vezes ontem e coça as orelhas.',
    diagnostico: 'Otite externa bilateral.',
    plano: 'Meloxicam 0,1 mg/kg a cada 24 horas por 5 dias.',
  },
});
const thor2 = await write(clinic.clinicId, {
  name: 'Thor',
  externalId: 'pet-1',
  day: '2026-10-15',
  sections: { diagnostico: 'Otites externas em melhora.', plano: 'Meloxicam 0,2 mg/kg a cada 24 horas.' },
});
const luna = await write(clinic.clinicId, {
  name: 'Luna Vômito',
  externalId: 'pet-2',
  day: '2026-10-20',
  sections: { anamnese: 'Vômitos frequentes após a ração nova; 50% da dieta trocada.', diagnostico: 'Gastrite.' },
});
const pending = await write(clinic.clinicId, { name: 'Rex', day: '2026-10-25', status: 'pending', sections: {} });
// Another clinic: the same words, newer. Never seen by the first clinic, in items or in totals.
await write(other.clinicId, {
  name: 'Thor',
  externalId: 'pet-1',
  day: '2026-11-01',
  sections: { diagnostico: 'Otite externa. Meloxicam. Vomitou.' },
});

async function search(params: Record<string, string>, key = clinic.viewer) {
  const response = await app.inject({ method: 'GET', url: `/notes/v1/notes?${new URLSearchParams(params)}`, headers: as(key) });
  return response;
}

async function found(params: Record<string, string>, key = clinic.viewer) {
  const response = await search(params, key);
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  expect(body.meta.total).toBe(body.pagination.total_items);
  return { ids: body.data.map((note: { id: string }) => note.id) as string[], body };
}

describe('GET /notes?q= — what matches', () => {
  it.each([
    ['a verb form finds the noun and back (vômito → vomitou, Vômitos)', 'vômito', [luna, thor1]],
    ['without accents', 'vomito', [luna, thor1]],
    ['upper case', 'VOMITOU', [luna, thor1]],
    ['a plural finds the singular (otite → otites)', 'otite', [thor2, thor1]],
    ['the singular finds the plural', 'otites', [thor2, thor1]],
    ['several words are all required', 'meloxicam otite', [thor2, thor1]],
    ['several words, one missing: nothing', 'meloxicam gastrite', []],
    ['a quoted phrase, exact', '"otite externa"', [thor1]],
    ['a quoted phrase in another case and without accents', '"OTITE EXTERNA bilateral"', [thor1]],
    ['a phrase whose words are not side by side: nothing', '"otite bilateral"', []],
    ['a phrase typed without accents finds it written with them', '"VOMITOS frequentes apos a racao"', [luna]],
    ['a phrase in the patient name', '"luna vomito"', [luna]],
    ['a phrase and a word', '"otites externas" meloxicam', [thor2]],
    ['the patient name', 'thor', [thor2, thor1]],
    ['the name and the text together', 'luna gastrite', [luna]],
    ['a number', '0,2', [thor2]],
    ['a word nowhere: nothing', 'parvovirose', []],
    ['only stop words: nothing', 'de a o', []],
  ])('%s', async (_, q, expected) => {
    const { ids, body } = await found({ q });
    expect(ids).toEqual(expected);
    expect(body.meta.total).toBe(expected.length);
    expect(body.meta.total_exact).toBe(true);
  });

  it('marks the matched words in a snippet per section, the name first', async () => {
    const { body } = await found({ q: 'luna vômito' });
    expect(body.data[0].matches).toEqual([
      { section_label: 'patient_name', snippet: '«Luna» «Vômito»' },
      { section_label: 'anamnese', snippet: expect.stringContaining('«Vômitos» frequentes') },
    ]);
    const thor = await found({ q: '"otite externa"' });
    expect(thor.body.data[0].matches).toEqual([{ section_label: 'diagnostico', snippet: '«Otite» «externa» bilateral' }]);
  });

  it('lists without `matches` when there is no q', async () => {
    const { body } = await found({});
    expect(body.data[0]).not.toHaveProperty('matches');
  });

  it('combines with every other filter', async () => {
    expect((await found({ q: 'vomito', external_id: 'pet-1' })).ids).toEqual([thor1]);
    expect((await found({ q: 'meloxicam', from: '2026-10-10' })).ids).toEqual([thor2]);
    expect((await found({ q: 'meloxicam', to: '2026-10-10' })).ids).toEqual([thor1]);
    expect((await found({ q: 'vomito', name: 'lu' })).ids).toEqual([luna]);
    expect((await found({ q: 'thor', transcription_status: 'pending' })).ids).toEqual([]);
    expect((await found({ q: 'rex', transcription_status: 'pending' })).ids).toEqual([pending]);
    expect((await found({ q: 'meloxicam', days: '3650' })).ids).toEqual([thor2, thor1]);
  });

  it('pages newest first, the total counted past the page', async () => {
    const first = await found({ q: 'meloxicam', limit: '1' });
    expect(first.ids).toEqual([thor2]);
    expect(first.body.meta).toMatchObject({ total: 2, total_pages: 2, total_exact: true });
    const second = await found({ q: 'meloxicam', limit: '1', page: '2' });
    expect(second.ids).toEqual([thor1]);
  });
});

describe('GET /notes?q= — hostile input', () => {
  it.each(['%', '_', '*', '%_%', "'", '"', '""', '"unclosed phrase', "o'brien & | ! <-> :*", '\\', '(((', 'a:*'])(
    'answers a list, never an error, for %j',
    async (q) => {
      const { body } = await found({ q });
      expect(Array.isArray(body.data)).toBe(true);
    },
  );

  it('treats % and _ as separators, not wildcards', async () => {
    expect((await found({ q: '50%' })).ids).toEqual([luna]);
    expect((await found({ q: 'melo%' })).ids).toEqual([]);
  });

  it.each([
    ['a query past the limit', 'a'.repeat(CONTENT_QUERY_MAX_CHARS + 1)],
    ['a 1,000-character query', 'vomito '.repeat(143)],
    ['a NUL character', 'vomito\u0000'],
    ['too many words', Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ')],
    ['an empty query', '   '],
  ])('refuses %s with 422', async (_, q) => {
    const response = await search({ q });
    expect(response.statusCode).toBe(422);
    expect(response.json().code).toBe('VALIDATION_ERROR');
  });

  it('takes a query at the limit', async () => {
    const q = `vomito ${'x'.repeat(CONTENT_QUERY_MAX_CHARS - 7)}`;
    expect((await found({ q })).ids).toEqual([]);
  });
});

describe('GET /notes?q= — tenancy, edits and erasure', () => {
  it("never shows another clinic's notes or counts them", async () => {
    expect((await found({ q: 'meloxicam' }, other.viewer)).body.meta.total).toBe(1);
    expect((await found({ q: 'gastrite' }, other.viewer)).ids).toEqual([]);
    expect((await found({ q: 'gastrite' }, other.viewer)).body.meta.total).toBe(0);
  });

  it('finds the current text after a section edit, and no longer the old one', async () => {
    const before = await found({ q: 'gastrite', limit: '1' });
    expect(before.ids).toEqual([luna]);
    const [section] = (
      (await run.execute(sql`select id from note_sections where note_id = ${luna} and label = 'diagnostico'`)) as unknown as {
        rows: { id: string }[];
      }
    ).rows;
    const edited = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/note_sections?section_id=${section!.id}`,
      headers: as(clinic.editor),
      payload: { title: 'Diagnóstico', content: 'Pancreatite aguda.', order: '2' },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect((await found({ q: 'gastrite' })).ids).toEqual([]);
    expect((await found({ q: 'pancreatite' })).ids).toEqual([luna]);
  });

  it('finds nothing of an erased note', async () => {
    const id = await write(clinic.clinicId, { name: 'Apagado', day: '2026-09-01', sections: { diagnostico: 'Leishmaniose visceral.' } });
    expect((await found({ q: 'leishmaniose' })).ids).toEqual([id]);
    const erased = await app.inject({ method: 'DELETE', url: `/notes/v1/notes/${id}`, headers: as(clinic.admin) });
    expect(erased.statusCode, erased.body).toBe(204);
    expect((await found({ q: 'leishmaniose' })).body.meta.total).toBe(0);
    expect((await found({ q: 'apagado' })).ids).toEqual([]);
    const left = (await run.execute(sql`select count(*)::int as n from note_search_documents where note_id = ${id}`)) as unknown as {
      rows: { n: number }[];
    };
    expect(left.rows[0]!.n).toBe(0);
  });
});

describe('GET /notes?q= — past the first walk', () => {
  // A third clinic with more notes than the first walk reads: every 3rd note says "vomitou" (dense:
  // the walk finds the page), "leishmaniose" only in notes older than the walk (the GIN index
  // after it), "otite externa" every 400th (some in the walk, the rest after it). Eight notes share
  // each created_at, to the microsecond: the walk's last place must come back exactly.
  const NOTES = CONTENT_WALK + 1_500;
  let third: Awaited<ReturnType<typeof createClinicWithKeys>>;

  // The stems' match, then (for a quoted phrase) the phrase as written in a section.
  async function expected(q: string, limit: number, page: number) {
    const phrase = q.startsWith('"') ? q.slice(1, -1) : '';
    const result = (await run.execute(sql`
      select d.note_id as id from note_search_documents d
      where d.clinic_id = ${third.clinicId} and d.document @@ websearch_to_tsquery('public.vetflow_portuguese', ${q})
        and (${phrase} = '' or exists (select 1 from note_sections s where s.note_id = d.note_id and lower(s.content) like '%' || ${phrase} || '%'))
      order by d.created_at desc, d.note_id desc limit ${limit} offset ${(page - 1) * limit}`)) as unknown as { rows: { id: string }[] };
    return result.rows.map((row) => row.id);
  }

  it.each([
    ['vomito', 10, 1],
    ['vomito', 100, 7],
    ['leishmaniose', 10, 1],
    ['leishmaniose', 5, 3],
    ['"otite externa"', 4, 2],
    ['"otite externa"', 100, 1],
  ])('q=%s, limit %i, page %i: the same page as one sorted query', async (q, limit, page) => {
    if (!third) {
      third = await createClinicWithKeys(db.database, 'Terceira');
      await run.execute(sql`
        insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds, transcription_status, created_at)
        select ${third.clinicId}, 'Paciente ' || i, 'k', 'mp3', 1, 'x', 1, 'completed',
               timestamptz '2026-11-01 12:00:00.123456+00' - (i / 8) * interval '1 minute'
        from generate_series(1, ${NOTES}) as i`);
      await run.execute(sql`
        insert into note_sections (note_id, label, title, content, "order", position)
        select id, 'diagnosis', 'Diagnóstico',
               case when rn % 3 = 0 then 'O cão vomitou ontem.' else 'Sem queixas.' end ||
               case when rn > ${CONTENT_WALK + 200} and rn % 97 = 0 then ' Suspeita de leishmaniose.' else '' end ||
               case when rn % 400 = 7 then ' Otite externa.' when rn % 400 = 9 then ' Otites externas.' else '' end,
               '1', 1
        from (select id, row_number() over (order by created_at desc, id desc) as rn from notes where clinic_id = ${third.clinicId}) n`);
      await run.execute(sql`analyze note_search_documents`);
    }
    const want = await expected(q, limit, page);
    expect(want.length).toBeGreaterThan(0);
    const response = await search({ q, limit: String(limit), page: String(page) }, third.viewer);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.map((note: { id: string }) => note.id)).toEqual(want);
  });
});

describe('note-search.sql', () => {
  const source = readFileSync(new URL('../../src/notes/reads/note-search.sql', import.meta.url), 'utf8');
  const objects = {
    functions: ['vetflow_index_notes_for_search', 'vetflow_note_search_changed'],
    triggers: [
      'note_search_documents_list_version_after_update',
      'note_sections_search_after_delete',
      'note_sections_search_after_insert',
      'note_sections_search_after_update',
      'notes_search_after_insert',
      'notes_search_after_update',
    ],
  };

  it('is deployed exactly as the source file defines it', async () => {
    const expected = await definitionsOf(run, source, objects);
    expect(expected.map((row) => row.name).sort()).toEqual([...objects.functions, ...objects.triggers].sort());
    expect(await definitionsIn(run, 'public', objects)).toEqual(expected);
  });
});
