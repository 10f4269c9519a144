// The content search and patient history cases of `npm run bench -- reads` (docs/benchmarks.md):
// the seeded clinic's completed notes get one section of clinical text each (so `q` has a million
// documents to search), one patient gets 50 full notes, and the cost a search document adds to a
// write is measured in SQL, side by side with the search triggers on and off.
import type { BenchDatabase } from './lib/database.ts';

const DAY_MS = 86_400_000;

/** The external id of the 50-note patient the history case reads. */
export const HISTORY_PATIENT = 'BENCH-PATIENT-50';
const HISTORY_NOTES = 50;

/**
 * One section of text per completed note, drawn so that the search has its cases: `vômito` in ~10 %
 * of the notes (several forms: vômito, vômitos, vomitou, vomitando), "otite externa" in ~2 % (and
 * "otites externas" in ~1 %, which the quoted phrase must not find), `leishmaniose` in ~0.05 %, the
 * rest everyday words. Written with the triggers off (a bulk load), the documents computed in one
 * statement and the GIN index rebuilt once, as a bulk import would do it.
 */
export async function seedSearchText(database: BenchDatabase, clinicId: string): Promise<{ seconds: number }> {
  const started = performance.now();
  await database.query('SELECT setseed(0.17)');
  await database.query(`SET session_replication_role = replica`);
  try {
    await database.query(
      `INSERT INTO note_sections (note_id, label, title, content, "order", position)
       SELECT n.id, 'diagnosis', 'Diagnóstico',
              (ARRAY['Tutor relata apetite normal.', 'Animal ativo, come bem.', 'Prurido intenso há uma semana.',
                     'Dor abdominal à palpação.', 'Claudicação do membro posterior esquerdo.'])[1 + floor(random() * 5)::int] || ' ' ||
              CASE WHEN r < 0.025 THEN 'Tutora relata que vomitou três vezes.'
                   WHEN r < 0.05 THEN 'Vômitos frequentes após a ração.'
                   WHEN r < 0.075 THEN 'Está vomitando desde ontem.'
                   WHEN r < 0.10 THEN 'Um vômito com sangue.'
                   ELSE '' END || ' ' ||
              CASE WHEN r2 < 0.02 THEN 'Otite externa bilateral.'
                   WHEN r2 < 0.03 THEN 'Otites externas recidivantes.'
                   WHEN r2 < 0.0305 THEN 'Suspeita de leishmaniose visceral.'
                   ELSE 'Sem alterações dignas de nota.' END,
              '1', 1
         FROM (SELECT id, random() AS r, random() AS r2 FROM notes WHERE clinic_id = $1 AND transcription_status = 'completed') n`,
      [clinicId],
    );
  } finally {
    await database.query(`SET session_replication_role = origin`);
  }
  await database.query('DROP INDEX note_search_documents_document_idx');
  // The seed's bulk insert left its notes without documents (note-search.sql): written here, at once.
  await database.query(
    `INSERT INTO note_search_documents (note_id, clinic_id, created_at, document)
     SELECT n.id, n.clinic_id, n.created_at,
            to_tsvector('public.vetflow_portuguese', n.name) || coalesce(to_tsvector('public.vetflow_portuguese', s.content), ''::tsvector)
       FROM notes n
       LEFT JOIN (SELECT note_id, string_agg(content, E'\n' ORDER BY position, id) AS content FROM note_sections GROUP BY note_id) s
         ON s.note_id = n.id
      WHERE n.clinic_id = $1
     ON CONFLICT (note_id) DO UPDATE SET document = excluded.document`,
    [clinicId],
  );
  await database.query(`SET maintenance_work_mem = '256MB'`);
  await database.query('CREATE INDEX note_search_documents_document_idx ON note_search_documents USING gin (document)');
  await database.query('RESET maintenance_work_mem');
  await database.query('VACUUM (ANALYZE) note_search_documents, note_sections');
  return { seconds: (performance.now() - started) / 1000 };
}

/** One patient with HISTORY_NOTES completed notes over two years: sections, vitals (a weight), a plan with two drugs and a recheck. */
export async function seedHistoryPatient(database: BenchDatabase, clinicId: string): Promise<void> {
  const rows = await database.query<{ id: string }>(
    `INSERT INTO notes (clinic_id, name, external_id, species, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds,
                        transcription_status, record_status, vitals, plan, visit_date, created_at)
     SELECT $1::uuid, 'Thor Bench', $2, 'canine', 'bench/thor-' || i, 'mp3', 1, 'x', 600, 'completed',
            CASE WHEN i % 3 = 0 THEN 'draft' ELSE 'signed' END,
            jsonb_build_array(jsonb_build_object('code', 'weight', 'value', 28 + (i % 7) * 0.3, 'unit', 'kg', 'comparator', null,
                                                 'text', 'peso', 'evidence', jsonb_build_object('start', 1, 'end', 2), 'flag', null)),
            jsonb_build_object(
              'medications', jsonb_build_array(
                jsonb_build_object('id', gen_random_uuid(), 'text', 'meloxicam 0,1 mg/kg', 'evidence', jsonb_build_object('start', 3, 'end', 5),
                  'drug', 'meloxicam', 'dose_value', 0.1 * (1 + i % 2), 'dose_unit', 'mg/kg', 'route', 'oral', 'interval_hours', 24,
                  'duration_days', 5, 'status', 'prescribed', 'computed_total', null),
                jsonb_build_object('id', gen_random_uuid(), 'text', 'omeprazol 1 mg/kg', 'evidence', jsonb_build_object('start', 6, 'end', 8),
                  'drug', 'omeprazol', 'dose_value', 1, 'dose_unit', 'mg/kg', 'route', 'oral', 'interval_hours', 24,
                  'duration_days', 7, 'status', 'prescribed', 'computed_total', null)),
              'exams', '[]'::jsonb, 'vaccines', '[]'::jsonb,
              'follow_ups', jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'text', 'retorno em 15 dias',
                'evidence', jsonb_build_object('start', 9, 'end', 10), 'kind', 'recheck', 'due_in_days', 15,
                'due_date', to_char(current_date - (i * 14) + 15, 'YYYY-MM-DD')))),
            current_date - (i * 14), now() - (i * 14) * interval '1 day'
       FROM generate_series(1, $3::int) AS i
     RETURNING id`,
    [clinicId, HISTORY_PATIENT, HISTORY_NOTES],
  );
  for (const { id } of rows) {
    await database.query(
      `INSERT INTO note_sections (note_id, label, title, content, "order", position)
       VALUES ($1, 'anamnesis', 'Anamnese', 'Tutor relata prurido nas orelhas.', '1', 1),
              ($1, 'diagnosis', 'Diagnóstico', 'Otite externa bilateral em acompanhamento.', '2', 2),
              ($1, 'treatment', 'Tratamento', 'Meloxicam 0,1 mg/kg a cada 24 horas por 5 dias.', '3', 3)`,
      [id],
    );
  }
}

/** The search cases, run as list cases (same load, same p99 target). */
export function searchCases(): { label: string; query: Record<string, string> }[] {
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
  return [
    { label: '?q=leishmaniose (rare word)', query: { q: 'leishmaniose' } },
    { label: '?q=vômito (common word, ~10 %)', query: { q: 'vômito' } },
    { label: '?q="otite externa" (phrase)', query: { q: '"otite externa"' } },
    { label: '?q=vômito&external_id=ERP-00012345', query: { q: 'vômito', external_id: 'ERP-00012345' } },
    { label: '?q=vômito&from&to (15 days)', query: { q: 'vômito', from: day(30), to: day(15) } },
    { label: '?q=vômito&page=50', query: { q: 'vômito', page: '50' } },
  ];
}

/**
 * What a search document costs a write, in SQL, side by side: `edits` section edits (one UPDATE of
 * one section's content each, as PATCH /note_sections writes it) and `inserts` single-note INSERTs
 * (as an upload writes its note), each timed with the search triggers enabled and disabled, in
 * alternating rounds so the machine's drift falls on both. Rolled back: nothing stays.
 */
export async function searchWriteCost(database: BenchDatabase, clinicId: string, rounds = 4, each = 200) {
  const sections = await database.query<{ id: string }>(
    `SELECT s.id FROM note_sections s JOIN notes n ON n.id = s.note_id WHERE n.clinic_id = $1 LIMIT $2`,
    [clinicId, each],
  );
  const triggers = ['note_sections_search_after_update', 'notes_search_after_insert'];
  const timed = { on: { edit: 0, insert: 0 }, off: { edit: 0, insert: 0 } };
  for (let round = 0; round < rounds * 2; round++) {
    const on = round % 2 === 0;
    await database.query('BEGIN');
    try {
      for (const trigger of triggers) {
        const table = trigger.startsWith('notes_') ? 'notes' : 'note_sections';
        await database.query(`ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
      }
      let started = performance.now();
      for (const { id } of sections) {
        await database.query(`UPDATE note_sections SET content = content || ' Reavaliado.', updated_at = now() WHERE id = $1`, [id]);
      }
      timed[on ? 'on' : 'off'].edit += performance.now() - started;
      started = performance.now();
      for (let i = 0; i < each; i++) {
        await database.query(
          `INSERT INTO notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds)
           VALUES ($1, 'Maria Conceição Silva', 'bench/write-cost', 'mp3', 1, 'x', 1)`,
          [clinicId],
        );
      }
      timed[on ? 'on' : 'off'].insert += performance.now() - started;
    } finally {
      await database.query('ROLLBACK');
    }
  }
  const per = (ms: number) => (ms * 1000) / (rounds * each);
  return {
    section_edit_us: { with_search: per(timed.on.edit), without: per(timed.off.edit) },
    note_insert_us: { with_search: per(timed.on.insert), without: per(timed.off.insert) },
  };
}

/** On-disk size of the search documents (table, TOAST and indexes) next to the notes table's. */
export async function searchIndexSizes(database: BenchDatabase) {
  const [row] = await database.query<{ notes: string; documents: string; gin: string; walk: string }>(
    `SELECT pg_total_relation_size('notes') AS notes,
            pg_total_relation_size('note_search_documents') AS documents,
            pg_relation_size('note_search_documents_document_idx') AS gin,
            pg_relation_size('note_search_documents_clinic_created_idx') AS walk`,
  );
  const mb = (bytes: string | undefined) => Math.round(Number(bytes ?? 0) / 1e5) / 10;
  return { notes_mb: mb(row?.notes), search_documents_mb: mb(row?.documents), gin_mb: mb(row?.gin), walk_index_mb: mb(row?.walk) };
}
