import pg from 'pg';
import { listFilters } from '../src/notes/reads/list-notes.ts';
import { countMatchingNotes, countNotes, noteFilters, notePage } from '../src/notes/reads/note-list.repo.ts';
import type { Db } from '../src/platform/db/client.ts';
import { drizzleNodePg } from '../src/platform/db/drizzle.ts';
import * as schema from '../src/platform/db/schema/index.ts';
import type { BenchDatabase } from './lib/database.ts';
import { type LoadConfig, type LoadResult, runLoad } from './lib/load.ts';
import { cpuSeconds } from './lib/proc.ts';
import { fmt, progress, type Row } from './lib/report.ts';
import type { BenchServer, VetflowServer } from './lib/servers.ts';
import { createNote } from './pipeline.ts';
import { HISTORY_PATIENT, searchCases, searchIndexSizes, searchWriteCost, seedHistoryPatient, seedSearchText } from './reads-search.ts';

export interface ReadsBenchOptions {
  vetflow: VetflowServer;
  /** bench/bare-read-server.ts on the same database. */
  bare: BenchServer;
  database: BenchDatabase;
  /** Keep-alive connections of the load generator for the single-note routes. */
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Notes bulk-inserted into the demo clinic before the list is measured. */
  listNotes: number;
  listConnections: number;
  listWarmupMs: number;
  listDurationMs: number;
}

const DAY_MS = 86_400_000;
const LIST_P99_TARGET_MS = 50;
const NOTE_RATIO_TARGET = 0.75;

/** What the measured GET /notes/{id} carries (checked from its own answer). */
interface MeasuredNote {
  sections: number;
  vitals: number;
  evidence_ranges: number;
  signed: boolean;
  amendments: number;
  bytes: number;
}

// Dictated into the first section: the eight kinds of vitals, read again from the edited text.
const EIGHT_VITALS =
  'Temperatura 39,8 °C, peso 12,5 kg, frequência cardíaca 120 bpm, frequência respiratória 32 mpm, TPC de 2 segundos, ' +
  'ECC 5, desidratação de 5%, mucosas hipocoradas.';

/**
 * The sandbox's made-up consultations never dictate observations, so its notes have five of the six
 * base sections: the sixth is added in SQL (with its evidence) before the note is signed, as
 * processing writes a section.
 */
async function sixSections(database: BenchDatabase, id: string) {
  await database.query(
    `INSERT INTO note_sections (note_id, label, title, content, evidence, "order", position)
     SELECT $1, 'observations', 'Observações', 'Tutora relata que o animal come bem e está ativo; sem alterações de comportamento.',
       '[{"start": 1.5, "end": 4.2}]'::jsonb, (max(position) + 1)::text, max(position) + 1
     FROM note_sections WHERE note_id = $1 HAVING count(*) = 5`,
    [id],
  );
}

/**
 * Makes the measured note a full one, through the API as a clinic would: six sections with
 * evidence, eight vitals (a section edit), a signature and one amendment. Fails when it is not.
 */
async function signedAndAmended(vetflow: VetflowServer, id: string): Promise<MeasuredNote> {
  const api = async (method: string, path: string, body?: object) => {
    const response = await fetch(`${vetflow.baseUrl}/notes/v1${path}`, {
      method,
      headers: { 'x-api-key': vetflow.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return { text, json: JSON.parse(text) as { data: any } };
  };
  const before = (await api('GET', `/notes/${id}`)).json.data;
  const first = before.note_sections[0];
  await api('PATCH', `/note_sections?section_id=${first.id}`, {
    title: first.title,
    content: `${first.content} ${EIGHT_VITALS}`,
    order: first.order,
  });
  const signer = { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' };
  await api('POST', `/notes/${id}/sign`, { signed_by: signer, acknowledge_flags: true });
  await api('POST', `/notes/${id}/amendments`, {
    section_id: before.note_sections.at(-1).id,
    content: `${before.note_sections.at(-1).content} Retorno antecipado para 5 dias.`,
    reason: 'Retorno combinado com a tutora após a consulta',
    signed_by: signer,
  });
  const after = await api('GET', `/notes/${id}`);
  const note = after.json.data;
  const measured: MeasuredNote = {
    sections: note.note_sections.length,
    vitals: note.vitals.length,
    evidence_ranges: note.note_sections.reduce((sum: number, section: { evidence: unknown[] }) => sum + section.evidence.length, 0),
    signed: note.signature !== null,
    amendments: (await api('GET', `/notes/${id}/amendments`)).json.data.length,
    bytes: Buffer.byteLength(after.text),
  };
  if (measured.sections < 6 || measured.vitals < 8 || measured.evidence_ranges === 0 || !measured.signed || measured.amendments !== 1) {
    throw new Error(`the measured note is not a full one: ${JSON.stringify(measured)}`);
  }
  return measured;
}

/**
 * Single-note reads against a bare Fastify + pg primary-key route (same database, same run), then
 * the filtered list on a clinic holding `listNotes` notes, with the SQL of its two queries (page and
 * count) timed by EXPLAIN ANALYZE to see which one costs.
 */
export async function runReadsBench(options: ReadsBenchOptions) {
  const { vetflow, bare, database } = options;
  progress('reads: one completed note with sections');
  const { id } = await createNote(vetflow, 0);
  await waitCompleted(database, id);
  const [counts] = await database.query<{ sections: string; clinic_id: string }>(
    'SELECT count(s.id) AS sections, n.clinic_id FROM notes n LEFT JOIN note_sections s ON s.note_id = n.id WHERE n.id = $1 GROUP BY n.clinic_id',
    [id],
  );
  const sections = Number(counts?.sections ?? 0);
  if (sections === 0) throw new Error('the benchmark note has no sections');
  const clinicId = counts!.clinic_id;

  const apiHeaders = { 'x-api-key': vetflow.apiKey };
  await sixSections(database, id);
  const measured = await signedAndAmended(vetflow, id);
  const load = (label: string, server: BenchServer, paths: string[], headers: Record<string, string> = {}, list = false) => {
    const config: LoadConfig = {
      url: server.baseUrl,
      paths,
      headers,
      connections: list ? options.listConnections : options.connections,
      warmupMs: list ? options.listWarmupMs : options.warmupMs,
      durationMs: list ? options.listDurationMs : options.durationMs,
    };
    progress(`reads: ${label}, ${config.connections} connections, ${config.warmupMs / 1000} s warm-up + ${config.durationMs / 1000} s`);
    return withCpu(database, server.pid, () => runLoad(config)).then((result) => checked(label, result));
  };

  // The baseline runs before and after the vetflow routes; the ratios use the mean of both, so a
  // drift of the shared machine's load during the section shows as a gap between the two.
  const bareFirst = await load('bare PK SELECT route', bare, [`/notes/${id}`]);
  const note = await load('GET /notes/{id}', vetflow, [`/notes/v1/notes/${id}`], apiHeaders);
  const status = await load('GET /notes/{id}/status', vetflow, [`/notes/v1/notes/${id}/status`], apiHeaders);
  const bareSecond = await load('bare PK SELECT route (again)', bare, [`/notes/${id}`]);

  progress(`reads: inserting ${options.listNotes.toLocaleString('en')} notes into the demo clinic`);
  const seedStarted = performance.now();
  await seedNotes(database, clinicId, options.listNotes);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  progress(`reads: inserted in ${seedSeconds.toFixed(1)} s; VACUUM ANALYZE notes and their name words`);
  const vacuumStarted = performance.now();
  // What autovacuum does within a minute or so of a bulk load; measured right after the load, a
  // table without statistics is planned as if it held 50 rows (docs/notes-reads.md, bulk imports).
  await database.query('VACUUM (ANALYZE) notes, note_name_words, note_name_dictionary');
  const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;

  progress('reads: one section of text per completed note (the search documents), and a 50-note patient');
  const searchSeed = await seedSearchText(database, clinicId);
  await seedHistoryPatient(database, clinicId);

  const listCases = [...listMatrix(), ...searchCases()];
  const list = [];
  for (const listCase of listCases) {
    const path = `/notes/v1/notes?${new URLSearchParams(listCase.query).toString()}`;
    const result = await load(`GET ${path}`, vetflow, [path], apiHeaders, true);
    const sql = await explainList(database, clinicId, listCase.query);
    list.push({ label: listCase.label, path, ...result, sql });
  }
  const slowest = list.reduce((a, b) => (b.p99_ms > a.p99_ms ? b : a));
  const history = await load(
    `GET /patients/${HISTORY_PATIENT} (50 notes)`,
    vetflow,
    [`/notes/v1/patients/${HISTORY_PATIENT}`],
    apiHeaders,
    true,
  );
  // Last: it takes table locks (the triggers switched off and on inside a rolled-back transaction).
  progress('reads: what a search document costs a section edit and a note insert (SQL, triggers on and off)');
  const search = {
    seed_seconds: searchSeed.seconds,
    sizes: await searchIndexSizes(database),
    write_cost: await searchWriteCost(database, clinicId),
  };

  const summary = summarize(options, {
    id,
    sections,
    measured,
    bareFirst,
    bareSecond,
    note,
    status,
    seedSeconds,
    vacuumSeconds,
    list,
    slowest: slowest.label,
    history,
    search,
  });
  return {
    summary,
    rows: rowsOf(summary),
    slowestPlans: { label: slowest.label, page: slowest.sql.page.plan, count: slowest.sql.count.plan },
  };
}

const cpuOfResult = (result: LoadResult) => (result as LoadResult & Partial<CpuPerRequest>).cpu_us_per_request?.total ?? Number.NaN;
const cpuTotal = (first: LoadResult, second: LoadResult) => (cpuOfResult(first) + cpuOfResult(second)) / 2;

function summarize(
  options: ReadsBenchOptions,
  m: {
    id: string;
    sections: number;
    measured: MeasuredNote;
    bareFirst: LoadResult;
    bareSecond: LoadResult;
    note: LoadResult;
    status: LoadResult;
    seedSeconds: number;
    vacuumSeconds: number;
    list: ({ label: string; path: string; sql: { page: Explained; count: Explained; total: number } } & LoadResult)[];
    slowest: string;
    history: LoadResult;
    search: { seed_seconds: number; sizes: Record<string, number>; write_cost: Record<string, { with_search: number; without: number }> };
  },
) {
  const { id, sections, measured, bareFirst, bareSecond, note, status, seedSeconds, vacuumSeconds, list, slowest, history, search } = m;
  const baselineRps = (bareFirst.rps + bareSecond.rps) / 2;
  return {
    note_id: id,
    note_sections: sections,
    measured_note: measured,
    connections: options.connections,
    warmup_ms: options.warmupMs,
    duration_ms: options.durationMs,
    baseline: { first: bareFirst, second: bareSecond, rps: baselineRps },
    note: {
      ...note,
      ratio: note.rps / baselineRps,
      target: NOTE_RATIO_TARGET,
      // The same ratio from CPU per request (server + Postgres): what it would be on an idle machine.
      cpu_ratio: cpuTotal(bareFirst, bareSecond) / cpuOfResult(note),
    },
    status: { ...status, ratio: status.rps / baselineRps, target: 0.85 },
    list: {
      notes: options.listNotes,
      seed_seconds: seedSeconds,
      vacuum_analyze_seconds: vacuumSeconds,
      connections: options.listConnections,
      warmup_ms: options.listWarmupMs,
      duration_ms: options.listDurationMs,
      p99_target_ms: LIST_P99_TARGET_MS,
      cases: list.map(({ sql, ...rest }) => ({
        ...rest,
        sql_page_ms: sql.page.ms,
        sql_count_ms: sql.count.ms,
        total: sql.total,
        page_plan_nodes: sql.page.nodes,
        count_plan_nodes: sql.count.nodes,
      })),
      slowest,
    },
    history: { ...history, p99_target_ms: LIST_P99_TARGET_MS },
    search,
  };
}

/** CPU per answered request (warm-up included, as the CPU is), in µs: the server process and its database's backends. */
export interface CpuPerRequest {
  cpu_us_per_request: { server: number; postgres: number; total: number };
}

/**
 * Runs a load and reads the CPU it cost from /proc: on a shared, loaded machine the requests per
 * second follow the neighbours' load, the CPU per request much less (docs/benchmarks.md).
 */
async function withCpu(database: BenchDatabase, pid: number, work: () => Promise<LoadResult>): Promise<LoadResult & CpuPerRequest> {
  const backends = async () =>
    (
      await database.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
    ).map((row) => row.pid);
  const cpuOf = (pids: number[]) =>
    pids.reduce((sum, backend) => {
      try {
        return sum + cpuSeconds(backend);
      } catch {
        return sum; // a backend that ended
      }
    }, 0);
  const pidsBefore = await backends();
  const serverBefore = cpuSeconds(pid);
  const postgresBefore = new Map(pidsBefore.map((backend) => [backend, cpuOf([backend])]));
  const result = await work();
  const serverSeconds = cpuSeconds(pid) - serverBefore;
  let postgresSeconds = 0;
  for (const backend of await backends()) postgresSeconds += cpuOf([backend]) - (postgresBefore.get(backend) ?? 0);
  const per = (seconds: number) => (seconds * 1e6) / Math.max(1, result.answered);
  return {
    ...result,
    cpu_us_per_request: {
      server: per(serverSeconds),
      postgres: per(postgresSeconds),
      total: per(serverSeconds + postgresSeconds),
    },
  };
}

function checked<T extends LoadResult>(label: string, result: T): T {
  const ok = result.statuses['200'] ?? 0;
  if (result.errors > 0 || ok !== result.requests || result.requests === 0) {
    throw new Error(`${label}: ${result.errors} socket errors, statuses ${JSON.stringify(result.statuses)}`);
  }
  return result;
}

export async function waitCompleted(database: BenchDatabase, id: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [row] = await database.query<{ transcription_status: string }>('SELECT transcription_status FROM notes WHERE id = $1', [id]);
    if (row?.transcription_status === 'completed') return;
    if (row?.transcription_status === 'failed' || Date.now() > deadline) throw new Error(`note ${id} is ${row?.transcription_status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Portuguese first names and surnames, most frequent first: each is drawn as
// floor(n × random()^1.5), so the head of each list is common ("João" ~9 % of first names, "Silva"
// ~7 % of each surname slot) and the tail rare, roughly like a real patient register.
const FIRST_NAMES = [
  'João',
  'Maria',
  'José',
  'Ana',
  'António',
  'Francisco',
  'Manuel',
  'Joana',
  'Luís',
  'Inês',
  'Pedro',
  'Beatriz',
  'Tomás',
  'Mariana',
  'Gonçalo',
  'Leonor',
  'Rodrigo',
  'Matilde',
  'Sebastião',
  'Conceição',
  'Rafael',
  'Carolina',
  'Diogo',
  'Lúcia',
  'Afonso',
  'Júlia',
  'Simão',
  'Mónica',
  'Sérgio',
  'Bárbara',
  'Vitória',
  'Cátia',
  'Fábio',
  'Márcia',
  'Nuno',
  'Sónia',
  'Rúben',
  'Célia',
  'André',
  'Sofia',
  'Vânia',
  'Hélder',
  'Benedita',
  'Caetano',
  'Irene',
  'Estêvão',
];
const SURNAMES = [
  'Silva',
  'Santos',
  'Ferreira',
  'Pereira',
  'Oliveira',
  'Costa',
  'Rodrigues',
  'Martins',
  'Jesus',
  'Sousa',
  'Fernandes',
  'Gonçalves',
  'Gomes',
  'Lopes',
  'Marques',
  'Alves',
  'Almeida',
  'Ribeiro',
  'Pinto',
  'Carvalho',
  'Teixeira',
  'Moreira',
  'Correia',
  'Mendes',
  'Nunes',
  'Soares',
  'Vieira',
  'Monteiro',
  'Cardoso',
  'Rocha',
  'Raposo',
  'Neves',
  'Coelho',
  'Cruz',
  'Cunha',
  'Pires',
  'Ramos',
  'Reis',
  'Simões',
  'Antunes',
  'Matos',
  'Fonseca',
  'Machado',
  'Araújo',
  'Barbosa',
  'Tavares',
  'Lourenço',
  'Castro',
  'Figueiredo',
  'Azevedo',
  'Freitas',
  'Falcão',
  'Assunção',
  'Brandão',
  'Galvão',
  'Romão',
  'Conceição',
  'Magalhães',
  'Guimarães',
  'Estêvão',
];

/**
 * `count` notes for the clinic in one INSERT ... SELECT generate_series (deterministic: setseed):
 * names "First Surname Surname", created over the last 12 months, 94 % completed / 4 % failed /
 * 2 % pending, 80 % with an external id. Transcripts stay NULL (the list never reads them; real
 * ones are TOASTed out of the heap anyway), and no sections: the list does not join them.
 */
export async function seedNotes(database: BenchDatabase, clinicId: string, count: number) {
  // Bulk-load practice: the secondary indexes are dropped and rebuilt from their own definitions
  // (pg_get_indexdef, so nothing drifts from the migrations): building the trigram GIN index once
  // takes a fraction of maintaining it row by row (~95 s for the whole insert here otherwise).
  const indexes = await database.query<{ name: string; definition: string }>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = 'notes'::regclass AND NOT i.indisprimary`,
  );
  for (const index of indexes) await database.query(`DROP INDEX ${index.name}`);
  await database.query('SELECT setseed(0.42)');
  await database.query(
    `INSERT INTO notes (clinic_id, name, gender, external_id, audio_name, audio_key, audio_format, audio_bytes, audio_sha256,
                        audio_duration_seconds, transcription_status, failure, attempts, processing_started_at, completed_at,
                        created_at, updated_at)
     SELECT $1::uuid, x.name, x.gender,
            CASE WHEN x.r_external < 0.8 THEN 'ERP-' || lpad(x.i::text, 8, '0') END,
            'consulta-' || x.i || '.mp3', 'bench/' || x.i || '.mp3', 'mp3', 200000 + (x.r_external * 20000000)::int,
            encode(sha256(x.i::text::bytea), 'hex'), 60 + x.r_external * 1740,
            x.status,
            CASE WHEN x.status = 'failed' THEN '{"code":"TRANSCRIPTION_FAILED","message":"provider error"}'::jsonb END,
            CASE WHEN x.status = 'pending' THEN 0 ELSE 1 END,
            CASE WHEN x.status <> 'pending' THEN x.created + interval '15 ms' END,
            CASE WHEN x.status = 'completed' THEN x.created + interval '4 s' END,
            x.created,
            x.created + CASE WHEN x.status = 'pending' THEN interval '0' ELSE interval '4 s' END
       FROM (SELECT g.i,
                    ($3::text[])[1 + floor(power(random(), 1.5) * array_length($3::text[], 1))::int] || ' ' ||
                    ($4::text[])[1 + floor(power(random(), 1.5) * array_length($4::text[], 1))::int] || ' ' ||
                    ($4::text[])[1 + floor(power(random(), 1.5) * array_length($4::text[], 1))::int] AS name,
                    CASE WHEN random() < 0.5 THEN 'female' ELSE 'male' END AS gender,
                    random() AS r_external,
                    CASE WHEN g.r < 0.94 THEN 'completed' WHEN g.r < 0.98 THEN 'failed' ELSE 'pending' END AS status,
                    now() - random() * interval '365 days' AS created
               FROM (SELECT i, random() AS r FROM generate_series(1, $2::int) AS i) AS g) AS x`,
    [clinicId, count, FIRST_NAMES, SURNAMES],
  );
  // A name no drawn combination makes, RARE_NOTES times over the year: the rare one- and two-word searches.
  await database.query(
    `INSERT INTO notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds, transcription_status, created_at)
     SELECT $1::uuid, 'Xavier Quaresma Silva', 'bench/rare-' || i || '.mp3', 'mp3', 200000, encode(sha256(i::text::bytea), 'hex'), 60,
            'completed', now() - (i * 365.0 / $2) * interval '1 day'
       FROM generate_series(1, $2::int) AS i`,
    [clinicId, RARE_NOTES],
  );
  await database.query(`SET maintenance_work_mem = '256MB'`);
  for (const index of indexes) await database.query(index.definition);
  await database.query('RESET maintenance_work_mem');
  return indexes.map((index) => index.name);
}

/** Notes named "Xavier Quaresma Silva", spread over the seeded year. */
const RARE_NOTES = 40;

/**
 * Every documented filter and their combinations: names of one and of several words, common
 * (`silva` ~13 % of notes, `maria silva` 0.3 %), sparse (`irene galvao`, ~160 notes) and rare
 * (`quaresma`, RARE_NOTES; `xavier` none but those), accents both ways, each with and without a
 * date range and `days`; status, external id; counts capped and exact; first and deep pages.
 */
export function listMatrix(): ListCase[] {
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
  const from = day(30);
  const to = day(15);
  const year = day(200);
  return [
    // The cases measured before (labels kept).
    { label: `?name=joao&from=${from} (30 days)`, query: { name: 'joao', from } },
    { label: '?name=silva', query: { name: 'silva' } },
    { label: '?name=ção&transcription_status=completed', query: { name: 'ção', transcription_status: 'completed' } },
    { label: '?name=maria silva&from (30 days)', query: { name: 'maria silva', from } },
    { label: ' (no filter, first page)', query: {} },
    { label: '?name=silva&count=exact', query: { name: 'silva', count: 'exact' } },
    // One word.
    { label: '?name=joao', query: { name: 'joao' } },
    { label: '?name=joão&from&to (15 days)', query: { name: 'joão', from, to } },
    { label: '?name=ção', query: { name: 'ção' } },
    { label: '?name=galvao&days=30', query: { name: 'galvao', days: '30' } },
    { label: '?name=quaresma (rare)', query: { name: 'quaresma' } },
    { label: '?name=quaresma&from (rare, 30 days)', query: { name: 'quaresma', from } },
    { label: '?name=quaresma&days=30 (rare)', query: { name: 'quaresma', days: '30' } },
    { label: '?name=nobody (no match)', query: { name: 'nobody' } },
    // Several words.
    { label: '?name=maria silva', query: { name: 'maria silva' } },
    { label: '?name=maria silva&days=30', query: { name: 'maria silva', days: '30' } },
    { label: '?name=joão silva&from&to (15 days)', query: { name: 'joão silva', from, to } },
    { label: '?name=irene galvao (sparse)', query: { name: 'irene galvao' } },
    { label: '?name=irene galvão&from (sparse, 30 days)', query: { name: 'irene galvão', from } },
    { label: '?name=xavier quaresma (rare)', query: { name: 'xavier quaresma' } },
    { label: '?name=xavier quaresma&from (rare, 30 days)', query: { name: 'xavier quaresma', from } },
    { label: '?name=xavier quaresma&days=30 (rare)', query: { name: 'xavier quaresma', days: '30' } },
    // Status, external id, dates alone, combined.
    { label: '?transcription_status=pending', query: { transcription_status: 'pending' } },
    { label: '?transcription_status=failed&name=maria silva', query: { transcription_status: 'failed', name: 'maria silva' } },
    {
      label: '?transcription_status=pending&name=irene galvao&from=200 days',
      query: { transcription_status: 'pending', name: 'irene galvao', from: year },
    },
    { label: '?external_id=ERP-00012345', query: { external_id: 'ERP-00012345' } },
    {
      label: '?external_id=ERP-00012345&name=a&transcription_status=completed',
      query: { external_id: 'ERP-00012345', name: 'a', transcription_status: 'completed' },
    },
    { label: '?from&to (15 days)', query: { from, to } },
    { label: '?days=30', query: { days: '30' } },
    // Counts.
    { label: '?name=maria silva&from&count=exact', query: { name: 'maria silva', from, count: 'exact' } },
    { label: '?name=joao&days=30&count=exact', query: { name: 'joao', days: '30', count: 'exact' } },
    // Deep pages.
    { label: '?name=joao&page=100', query: { name: 'joao', page: '100' } },
    { label: '?name=maria silva&page=30', query: { name: 'maria silva', page: '30' } },
    { label: '?name=irene galvao&page=10', query: { name: 'irene galvao', page: '10' } },
    { label: '?name=quaresma&page=5 (past the end)', query: { name: 'quaresma', page: '5' } },
    { label: ' (no filter, page 1000)', query: { page: '1000' } },
  ];
}

interface ListCase {
  label: string;
  query: Record<string, string>;
}

interface Explained {
  ms: number;
  /** The plan's node types, outermost first ("Limit > Sort > Bitmap Heap Scan > ..."). */
  nodes: string;
  plan: string;
}

/** NOTES_LIST_COUNT_LIMIT's default: the list counts at most this many + 1 rows. */
const COUNT_LIMIT = 10_000;

/**
 * The statements GET /notes runs for `query` (src/notes/reads/note-list.repo.ts: the page, in one
 * or more statements for a name, then — when the page is full — the count for `total`, capped at
 * COUNT_LIMIT + 1 rows unless `count=exact`), captured from the repository's own functions as
 * drizzle sends them (parameters included, so Postgres plans them with the values as node-postgres'
 * unnamed statements do), each timed with EXPLAIN (ANALYZE, BUFFERS).
 */
export async function explainList(database: BenchDatabase, clinicId: string, query: Record<string, string>) {
  const statements: { text: string; values: unknown[] }[] = [];
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    const db = drizzleNodePg(pool, {
      schema,
      casing: 'snake_case',
      logger: { logQuery: (text: string, values: unknown[]) => void statements.push({ text, values }) },
    }) as unknown as Db;
    const filters = listFilters({ ...query, days: query.days === undefined ? undefined : Number(query.days) });
    const limit = 10;
    const offset = (Number(query.page ?? 1) - 1) * limit;
    const rows = await notePage(clinicId, filters, { limit, offset }, db);
    const pageStatements = statements.length;
    const counted = !(rows.length < limit && (rows.length > 0 || offset === 0));
    if (counted) await countMatchingNotes(clinicId, filters, query.count === 'exact' ? undefined : COUNT_LIMIT, db);
    const countStatements = statements.length;
    const total = filters.content
      ? await countMatchingNotes(clinicId, filters, undefined, db)
      : await countNotes(noteFilters(clinicId, filters), undefined, db);
    const explained = [];
    for (const statement of statements.slice(0, countStatements)) {
      explained.push(await explain(database, statement.text, statement.values));
    }
    const joined = (parts: Explained[]): Explained => ({
      ms: parts.reduce((sum, part) => sum + part.ms, 0),
      nodes: parts.map((part) => part.nodes).join(' ; '),
      plan: parts.map((part) => part.plan).join('\n\n'),
    });
    const page = joined(explained.slice(0, pageStatements));
    // A count of a name may take more than one statement (the name's words, then the count).
    const count: Explained = counted
      ? joined(explained.slice(pageStatements))
      : { ms: 0, nodes: '(not counted: the last page)', plan: '-- not counted: the page is the last one' };
    return { page, count, total };
  } finally {
    await pool.end();
  }
}

async function explain(database: BenchDatabase, text: string, values: unknown[]): Promise<Explained> {
  const rows = await database.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
  const lines = rows.map((row) => row['QUERY PLAN']);
  const ms = Number(/Execution Time: ([\d.]+) ms/.exec(lines.at(-1) ?? '')?.[1]);
  const nodes = lines
    .map((line) => /^\s*(?:->\s+)?([A-Z][A-Za-z ]+?)(?: using| on|\s+\(|$)/.exec(line)?.[1])
    .filter(
      (node): node is string =>
        Boolean(node) &&
        !/^(Planning|Execution|Buffers|Heap Blocks|Recheck|Filter|Rows Removed|Index Cond|Sort Key|Sort Method|Workers|Worker|Hash Cond|JIT|Functions|Options|Timing)/.test(
          node!,
        ),
    )
    .join(' > ');
  return { ms, nodes, plan: [`-- ${text.replace(/\s+/g, ' ')}`, `-- values: ${JSON.stringify(values)}`, ...lines].join('\n') };
}

type ReadsSummary = ReturnType<typeof summarize>;

function rowsOf(s: ReadsSummary): Row[] {
  const rps = (value: number) => `${Math.round(value).toLocaleString('en')} req/s`;
  const latency = (r: LoadResult) => `${fmt.ms(r.p50_ms)} / ${fmt.ms(r.p99_ms)}`;
  const rows: Row[] = [
    {
      measurement: 'bare Fastify + pg PK SELECT (named), run 1 / run 2',
      value: `${rps(s.baseline.first.rps)} / ${rps(s.baseline.second.rps)}`,
      baseline: '',
      ratio: '',
    },
    { measurement: '  p50 / p99, run 1', value: latency(s.baseline.first), baseline: '', ratio: '' },
    {
      measurement: `GET /notes/{id} (${s.measured_note.sections} sections, ${s.measured_note.vitals} vitals, signed, ${s.measured_note.amendments} amendment; ${s.measured_note.bytes.toLocaleString('en')} B)`,
      value: rps(s.note.rps),
      baseline: rps(s.baseline.rps),
      ratio: fmt.ratio(s.note.ratio),
      target: `≥ ${NOTE_RATIO_TARGET.toFixed(2)}×`,
    },
    {
      measurement: '  p50 / p99',
      value: latency(s.note),
      baseline: latency(s.baseline.first),
      ratio: fmt.ratio(s.note.p99_ms / s.baseline.first.p99_ms),
    },
    {
      measurement: '  CPU per request, server + Postgres (ratio: baseline / this)',
      value: `${Math.round(cpuOfResult(s.note))} µs`,
      baseline: `${Math.round(cpuTotal(s.baseline.first, s.baseline.second))} µs`,
      ratio: fmt.ratio(s.note.cpu_ratio),
    },
    {
      measurement: 'GET /notes/{id}/status',
      value: rps(s.status.rps),
      baseline: rps(s.baseline.rps),
      ratio: fmt.ratio(s.status.ratio),
      target: '≥ 0.85×',
    },
    {
      measurement: '  p50 / p99',
      value: latency(s.status),
      baseline: latency(s.baseline.first),
      ratio: fmt.ratio(s.status.p99_ms / s.baseline.first.p99_ms),
    },
  ];
  rows.push({
    measurement: 'GET /patients/{external_id} (50 notes), p99 / p50',
    value: `${fmt.ms(s.history.p99_ms)} / ${fmt.ms(s.history.p50_ms)}`,
    baseline: `${s.history.p99_target_ms} ms`,
    ratio: fmt.ratio(s.history.p99_ms / s.history.p99_target_ms),
    target: `< ${s.history.p99_target_ms} ms`,
  });
  const cost = s.search.write_cost;
  rows.push({
    measurement: 'section edit / note insert in SQL, µs: with search document (ratio: with / without)',
    value: `${Math.round(cost.section_edit_us!.with_search)} / ${Math.round(cost.note_insert_us!.with_search)}`,
    baseline: `${Math.round(cost.section_edit_us!.without)} / ${Math.round(cost.note_insert_us!.without)}`,
    ratio: `${fmt.ratio(cost.section_edit_us!.with_search / cost.section_edit_us!.without)} / ${fmt.ratio(cost.note_insert_us!.with_search / cost.note_insert_us!.without)}`,
  });
  rows.push({
    measurement: 'search documents on disk (table + GIN + walk index), MB; notes table',
    value: `${s.search.sizes.search_documents_mb} (GIN ${s.search.sizes.gin_mb}, walk ${s.search.sizes.walk_index_mb})`,
    baseline: `${s.search.sizes.notes_mb}`,
    ratio: fmt.ratio(s.search.sizes.search_documents_mb! / s.search.sizes.notes_mb!),
  });
  for (const c of s.list.cases) {
    rows.push({
      measurement: `GET /notes${c.label}, p99`,
      value: fmt.ms(c.p99_ms),
      baseline: `${s.list.p99_target_ms} ms`,
      ratio: fmt.ratio(c.p99_ms / s.list.p99_target_ms),
      target: `< ${s.list.p99_target_ms} ms`,
    });
    rows.push({
      measurement: `  p50, req/s (total = ${c.total.toLocaleString('en')})`,
      value: `${fmt.ms(c.p50_ms)}, ${rps(c.rps)}`,
      baseline: '',
      ratio: '',
    });
    rows.push({
      measurement: `  SQL: page / count${c.path.includes('count=exact') ? '(*)' : ` capped at ${COUNT_LIMIT.toLocaleString('en')}`} (EXPLAIN ANALYZE)`,
      value: `${fmt.ms(c.sql_page_ms)} / ${fmt.ms(c.sql_count_ms)}`,
      baseline: '',
      ratio: '',
    });
  }
  return rows;
}
