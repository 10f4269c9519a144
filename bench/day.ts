import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { toneParts } from '../test/helpers/live-parts.ts';
import { firstRunCredentials, runCli, startServer } from '../test/helpers/processes.ts';
import { FIXTURE_MP3, ROOT } from './lib/audio.ts';
import { createBenchDatabase } from './lib/database.ts';
import { cpuSeconds } from './lib/proc.ts';
import { fmt, progress, type Row } from './lib/report.ts';
import { type Answer, RouteStats, timedRequest } from './lib/route-stats.ts';
import { startBareReadServer, startVetflow, type VetflowServer } from './lib/servers.ts';

// A clinic day compressed into one minute: two ROLE=api processes behind a round-robin "load
// balancer" (this client alternates between them, request by request) and one ROLE=worker, on one
// fresh Postgres database, driven by an open-loop mix (arrivals on a clock, not waiting for answers:
// a slow server does not slow the clients down, as vets do not wait for each other). The mix, per
// second (×BENCH_DAY_SCALE):
//   - 0.5 uploads of a real consultation (23.7 s mp3 / m4a fixtures, 72 and 102 KB), then the app
//     polls its status every second until it is completed, fetches the note and exports it;
//   - 0.25 live visits: create, three 20 s m4a parts one second apart (one part in eight sent
//     twice at once, through both api processes), complete, then the same polling, fetch and export;
//   - 10 note fetches of a random completed note (vets reading the record);
//   - 4 list searches (one name, two names, name + today, a date range, status, external id,
//     an exact count);
//   - 1 export of a random completed note (TXT and RTF in turn);
//   - 5 CRM contact upserts (half new contacts, half updates of one created earlier).
// Transcription: the sandbox provider in the worker (nothing leaves 127.0.0.1). Baseline: a bare
// Fastify + pg primary-key route read at the note fetches' rate in the same window. docs/benchmarks.md
// describes what counts as an error and how the rows are measured.

export interface DayBenchOptions {
  adminUrl: string;
  workDir: string;
  seconds: number;
  warmupSeconds: number;
  scale: number;
  /** The caller's clean-up list: the processes and the database are on it while the section runs. */
  cleanups: (() => Promise<unknown>)[];
}

/** Per-key limits raised so that the limiter runs on every request but never answers 429 (as the reads section does). */
const RATE_LIMIT = '1000000000';
const READ_P99_TARGET_MS = 100;
const BARE_ROUTE = 'bare PK read route (baseline)';
const READ_ROUTES = ['GET /notes/{id}', 'GET /notes/{id}/status', 'GET /notes (list)'];
/** The table's order: writes as a visit makes them, then the reads, exports and the CRM. */
const ROUTE_ORDER = [
  'POST /notes (upload)',
  'POST /notes/live',
  'PUT /notes/{id}/parts/{n}',
  'POST /notes/{id}/complete',
  ...READ_ROUTES,
  'GET /notes/{id}/export (txt)',
  'GET /notes/{id}/export (rtf)',
  'PUT /flow/v1/external/workspaces/{id}/contacts',
];
const PATIENTS = ['Thor', 'Luna', 'Mel', 'Bob', 'Nina', 'Pipoca', 'Amora', 'Fred', 'Bidu', 'Lola'];
const TUTORS = ['Silva', 'Souza', 'Oliveira', 'Santos', 'Pereira', 'Costa', 'Ferreira', 'Almeida'];
const POLL_MS = 1_000;
const PART_GAP_MS = 1_000;
const RESEND_EVERY = 8;

export async function runDayBench(options: DayBenchOptions) {
  const database = await createBenchDatabase(options.adminUrl);
  const dataDir = path.join(options.workDir, 'day-data');
  // As an operator runs them: every process with the same DATABASE_URL and storage, the per-key
  // limits raised for this load (see above), the worker's job settings written out at their
  // documented defaults (NOTIFY wakes it; polling every 2 s is the backstop).
  const shared = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    TRANSCRIPTION_PROVIDER: 'sandbox',
    // Set as operations.md asks (the same value on every process); unset, each process logs an error at start.
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    NODE_COMPILE_CACHE: path.join(ROOT, 'node_modules/.cache/node-compile-cache'),
  };
  const apiEnv = {
    ...shared,
    ROLE: 'api',
    RATE_LIMIT_ADMINISTRATOR_PER_MINUTE: RATE_LIMIT,
    CRM_RATE_LIMIT_PER_MINUTE: RATE_LIMIT,
    // With BENCH_PROFILE_DIR, each api process writes a .cpuprofile of its whole life when it exits.
    ...(process.env.BENCH_PROFILE_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}` } : {}),
  };
  const workerEnv = {
    ...shared,
    ROLE: 'worker',
    JOB_POLLING_INTERVAL_SECONDS: '2',
    JOB_SUPERVISE_INTERVAL_SECONDS: '60',
    TRANSCRIPTION_CONCURRENCY: '4',
    // A provider's latency (a 24 s recording transcribed at ~12× real time): apps poll a few times per note.
    SANDBOX_TRANSCRIPTION_DELAY_MS: '2000',
  };
  // Also run by the caller's Ctrl-C handler (its list, in reverse), and taken off it once done.
  const stops = options.cleanups;
  const ours = stops.length;
  stops.push(() => database.drop());
  const warnings = new Map<string, number>();
  try {
    progress('day: making the live parts (once per machine), starting two api processes and a worker');
    const parts = await toneParts([0, 20, 40, 60], () => 'm4a', 60);
    const uploads = [
      { file: await readFile(FIXTURE_MP3), name: 'consulta.mp3', type: 'audio/mpeg' },
      { file: await readFile(path.join(ROOT, 'test/fixtures/audio/consultation.m4a')), name: 'consulta.m4a', type: 'audio/mp4' },
    ];
    // The first process migrates and writes the demo clinic and workspace (its start-up line carries
    // the credentials file's path); the others find them there.
    const first: VetflowServer = await startVetflow(apiEnv);
    stops.push(() => first.stop());
    const second = await startServer(apiEnv);
    stops.push(() => second.stop());
    const worker = await startServer(workerEnv);
    stops.push(() => worker.stop());
    const crm = await crmKey(first, database.url);
    // The baseline: a bare Fastify + pg primary-key route on the same database, read at the note
    // fetches' rate in the same window, so the machine's own tail (shared, loaded) shows beside ours.
    const bare = await startBareReadServer(database.url, 10);
    stops.push(() => bare.stop());
    const startOutput = [first.output.length, second.output.length, worker.output.length];

    const stats = new RouteStats();
    const client = new DayClient([first.baseUrl, second.baseUrl], first.apiKey, crm, stats, bare.baseUrl);
    const traffic = new Traffic(client, stats, uploads, parts);

    progress('day: a morning of history (12 uploads, 20 contacts) before the clock starts');
    await Promise.all(Array.from({ length: 12 }, (_, i) => traffic.upload(i)));
    await Promise.all(Array.from({ length: 20 }, () => traffic.upsertContact(true)));

    const pids = { api: [first.pid, second.child.pid!], worker: worker.child.pid! };
    const warmupMs = options.warmupSeconds * 1000;
    const windowMs = options.seconds * 1000;
    const startedAt = performance.now();
    stats.measureFrom = startedAt + warmupMs;
    const endAt = stats.measureFrom + windowMs;
    stats.measureUntil = endAt;
    progress(`day: ${options.warmupSeconds} s warm-up, then ${options.seconds} s measured (scale ${options.scale})`);
    let cpuBefore = { api: 0, worker: 0 };
    let windowStart = new Date();
    let loadBefore = os.loadavg();
    const marked = sleep(warmupMs).then(() => {
      cpuBefore = cpuOf(pids);
      windowStart = new Date();
      loadBefore = os.loadavg();
    });
    await traffic.run(options.scale, endAt);
    await marked;
    const windowEnd = new Date(windowStart.getTime() + windowMs);
    const cpuAfter = cpuOf(pids);
    const loadAfter = os.loadavg();
    const [counts] = await database.query<{ completed: string; created: string; pending: string; failed: string }>(
      `SELECT count(*) FILTER (WHERE completed_at >= $1 AND completed_at < $2) AS completed,
              count(*) FILTER (WHERE created_at >= $1 AND created_at < $2) AS created,
              count(*) FILTER (WHERE transcription_status = 'pending') AS pending,
              count(*) FILTER (WHERE transcription_status = 'failed') AS failed
         FROM notes`,
      [windowStart, windowEnd],
    );
    client.close();
    // What the processes logged at warn or above (pino levels 40+): a job retried, a slow query, a
    // 5xx the client saw as well. Errors (50+) count as errors, start-up included; warnings once the
    // traffic started are printed (start-up's notices, sandbox provider and credentials file, are not).
    for (const [who, output, from] of [
      ['api 1', first.output, startOutput[0]!],
      ['api 2', second.output, startOutput[1]!],
      ['worker', worker.output, startOutput[2]!],
    ] as const) {
      for (const [i, line] of output.entries()) {
        const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 0);
        if (level < 40 || (level < 50 && i < from)) continue;
        const text = logText(line)
          .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
          .slice(0, 300);
        if (level >= 50) stats.other(`${who} logged: ${text}`);
        else warnings.set(`${who}: ${text}`, (warnings.get(`${who}: ${text}`) ?? 0) + 1);
      }
    }
    const summary = summarize(stats, options, {
      completed: Number(counts!.completed),
      created: Number(counts!.created),
      pendingAtEnd: Number(counts!.pending),
      failed: Number(counts!.failed),
      cpu: { api_s: cpuAfter.api - cpuBefore.api, worker_s: cpuAfter.worker - cpuBefore.worker },
      load: { before: round2(loadBefore), after: round2(loadAfter) },
    });
    summary.baseline[BARE_ROUTE]!.errors = [...client.baselineErrors.values()].reduce((sum, count) => sum + count, 0);
    return {
      summary,
      rows: rowsOf(summary),
      errors: stats.distinctErrors(),
      warnings: [
        ...[...warnings].map(([warning, count]) => ({ warning, count })),
        ...[...client.baselineErrors].map(([error, count]) => ({ warning: `${BARE_ROUTE}: ${error}`, count })),
      ],
    };
  } finally {
    for (const stop of stops.splice(ours).reverse()) await stop().catch((error) => console.error('day: stop failed:', error));
  }
}

/** A CRM key for the demo workspace, issued as an operator does (`vetflow crm-key create`). */
async function crmKey(server: VetflowServer, databaseUrl: string): Promise<{ token: string; contactsPath: string }> {
  const text = firstRunCredentials(server)?.text ?? '';
  const workspaceId = /workspace +Demo workspace \(([0-9a-f-]{36})\)/.exec(text)?.[1];
  if (!workspaceId) throw new Error(`no demo workspace in the first-run credentials:\n${text}`);
  const result = await runCli(['crm-key', 'create', '--workspace', workspaceId, '--name', 'bench day', '--scopes', 'contacts:write'], {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
  });
  const token = /"token":\s*"([^"]+)"/.exec(result.stdout)?.[1];
  if (result.code !== 0 || !token) throw new Error(`crm-key create failed (${result.code}): ${result.stdout}${result.stderr}`);
  return { token, contactsPath: `/flow/v1/external/workspaces/${workspaceId}/contacts` };
}

/** Sends each request to the next api process in turn, as a round-robin load balancer does. */
class DayClient {
  readonly #agents: http.Agent[];
  #turn = 0;
  readonly baseUrls: string[];
  readonly apiKey: string;
  readonly crm: { token: string; contactsPath: string };
  readonly stats: RouteStats;
  readonly #bare: { url: string; agent: http.Agent };

  constructor(baseUrls: string[], apiKey: string, crm: { token: string; contactsPath: string }, stats: RouteStats, bareUrl: string) {
    this.baseUrls = baseUrls;
    this.apiKey = apiKey;
    this.crm = crm;
    this.stats = stats;
    this.#agents = baseUrls.map(() => new http.Agent({ keepAlive: true, maxSockets: 64 }));
    this.#bare = { url: bareUrl, agent: new http.Agent({ keepAlive: true, maxSockets: 64 }) };
  }

  /** The baseline's failures: printed, not vetflow's errors (a shared Postgres out of connections, say). */
  readonly baselineErrors = new Map<string, number>();

  /** The baseline's read of note `id`, recorded under BARE_ROUTE. */
  async bareRead(id: string): Promise<void> {
    const startedAt = performance.now();
    const failed = (error: string) => this.baselineErrors.set(error, (this.baselineErrors.get(error) ?? 0) + 1);
    try {
      const answer = await timedRequest(this.#bare.agent, `${this.#bare.url}/notes/${id}`, { method: 'GET' });
      this.stats.record(BARE_ROUTE, startedAt, answer.ms);
      if (answer.status !== 200) failed(`${answer.status} ${answer.body.slice(0, 300)}`);
    } catch (error) {
      failed(`socket: ${(error as Error).message}`);
    }
  }

  /**
   * One request: recorded under `route` when it started in the measured window; any status not in
   * `expected` (or a socket error) is an error. Answers null then.
   */
  async send(
    route: string,
    expected: number[],
    method: string,
    url: string,
    options: { body?: Buffer | string; headers?: Record<string, string>; crm?: boolean } = {},
  ): Promise<Answer | null> {
    const i = this.#turn++ % this.baseUrls.length;
    const auth: Record<string, string> = options.crm ? { authorization: `Bearer ${this.crm.token}` } : { 'x-api-key': this.apiKey };
    const startedAt = performance.now();
    try {
      const answer = await timedRequest(this.#agents[i]!, `${this.baseUrls[i]}${url}`, {
        method,
        headers: { ...auth, ...options.headers },
        body: options.body,
      });
      this.stats.record(route, startedAt, answer.ms);
      if (!expected.includes(answer.status)) {
        this.stats.error(route, `${answer.status} ${answer.body.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>').slice(0, 300)}`);
        return null;
      }
      return answer;
    } catch (error) {
      this.stats.error(route, `socket: ${(error as Error).message}`);
      return null;
    }
  }

  close(): void {
    for (const agent of [...this.#agents, this.#bare.agent]) agent.destroy();
  }
}

const json = { 'content-type': 'application/json' };

/** The clinic's traffic: what each kind of client does, and the clock that starts them. */
class Traffic {
  readonly completed: string[] = [];
  readonly #contacts: string[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();
  #n = 0;
  #stopped = false;
  readonly client: DayClient;
  readonly stats: RouteStats;
  readonly uploads: { file: Buffer; name: string; type: string }[];
  readonly parts: Buffer[];

  constructor(client: DayClient, stats: RouteStats, uploads: { file: Buffer; name: string; type: string }[], parts: Buffer[]) {
    this.client = client;
    this.stats = stats;
    this.uploads = uploads;
    this.parts = parts;
  }

  /** Starts every stream at its rate until `endAt`, then waits for the requests still out. */
  async run(scale: number, endAt: number): Promise<void> {
    const streams: [perSecond: number, start: () => Promise<unknown>][] = [
      [0.5, () => this.upload(this.#n++)],
      [0.25, () => this.liveVisit(this.#n++)],
      [10, () => this.fetchNote()],
      [10, () => this.bareRead()],
      [4, () => this.listSearch(this.#n++)],
      [1, () => this.exportNote(this.#n++)],
      [5, () => this.upsertContact(this.#n++ % 2 === 0)],
    ];
    await Promise.all(
      streams.map(async ([perSecond, start]) => {
        // Poisson arrivals: exponential gaps, so bursts happen as they do with independent people.
        for (;;) {
          await sleep(-Math.log(1 - Math.random()) * (1000 / (perSecond * scale)));
          if (performance.now() >= endAt) return;
          this.#track(start());
        }
      }),
    );
    this.#stopped = true;
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  #track(work: Promise<unknown>): void {
    this.#inFlight.add(work);
    work.finally(() => this.#inFlight.delete(work)).catch(() => {});
  }

  async upload(i: number): Promise<void> {
    const audio = this.uploads[i % this.uploads.length]!;
    const boundary = `----vetflow-day-${randomBytes(8).toString('hex')}`;
    const metadata = JSON.stringify({ name: patientName(i), gender: i % 2 ? 'male' : 'female', external_id: `pet-${i}` });
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="metadata"\r\n\r\n${metadata}\r\n` +
          `--${boundary}\r\ncontent-disposition: form-data; name="audio"; filename="${audio.name}"\r\ncontent-type: ${audio.type}\r\n\r\n`,
      ),
      audio.file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const answer = await this.client.send('POST /notes (upload)', [201], 'POST', '/notes/v1/notes', {
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    if (answer) await this.#followUp(idOf(answer), i);
  }

  async liveVisit(i: number): Promise<void> {
    const created = await this.client.send('POST /notes/live', [201], 'POST', '/notes/v1/notes/live', {
      body: JSON.stringify({ name: patientName(i), gender: 'female', external_id: `pet-${i}` }),
      headers: json,
    });
    if (!created) return;
    const id = idOf(created);
    for (const [k, part] of this.parts.entries()) {
      await sleep(PART_GAP_MS);
      const put = () =>
        this.client.send('PUT /notes/{id}/parts/{n}', [200, 201], 'PUT', `/notes/v1/notes/${id}/parts/${k + 1}`, {
          body: part,
          headers: { 'content-type': 'audio/mp4' },
        });
      // One part in RESEND_EVERY is sent twice at once, each to another api process: the phone gave
      // up waiting and sent it again while the first request was still being served. The part is
      // stored once: one 201, the other 200 with the same body.
      const answers = (i * this.parts.length + k) % RESEND_EVERY === 0 ? await Promise.all([put(), put()]) : [await put()];
      if (answers.some((answer) => !answer)) return;
      const created = answers.filter((answer) => answer!.status === 201).length;
      if (created !== 1) this.stats.error('PUT /notes/{id}/parts/{n}', `${answers.length} sends of one part, ${created} answered 201`);
      if (answers.length === 2 && answers[0]!.body !== answers[1]!.body) {
        this.stats.error('PUT /notes/{id}/parts/{n}', 'a part sent twice answered two different bodies');
      }
    }
    const done = await this.client.send('POST /notes/{id}/complete', [202], 'POST', `/notes/v1/notes/${id}/complete`, {
      body: JSON.stringify({ parts: this.parts.length }),
      headers: json,
    });
    if (done) await this.#followUp(id, i);
  }

  /** What the recording app does next: polls the status every second, then opens the note and exports it. */
  async #followUp(id: string, i: number): Promise<void> {
    for (;;) {
      await sleep(POLL_MS);
      if (this.#stopped) return;
      const answer = await this.client.send('GET /notes/{id}/status', [200], 'GET', `/notes/v1/notes/${id}/status`);
      if (!answer) return;
      const { status, failure } = JSON.parse(answer.body) as { status: string; failure?: unknown };
      if (status === 'failed') {
        this.stats.other(`note failed: ${JSON.stringify(failure)}`);
        return;
      }
      if (status === 'completed') break;
    }
    this.completed.push(id);
    await this.client.send('GET /notes/{id}', [200], 'GET', `/notes/v1/notes/${id}`);
    await this.exportNote(i, id);
  }

  async bareRead(): Promise<void> {
    const id = this.#randomCompleted();
    if (id) await this.client.bareRead(id);
  }

  async fetchNote(): Promise<void> {
    const id = this.#randomCompleted();
    if (id) await this.client.send('GET /notes/{id}', [200], 'GET', `/notes/v1/notes/${id}`);
  }

  async exportNote(i: number, id = this.#randomCompleted()): Promise<void> {
    const format = i % 2 === 0 ? 'txt' : 'rtf';
    if (id) await this.client.send(`GET /notes/{id}/export (${format})`, [200], 'GET', `/notes/v1/notes/${id}/export?format=${format}`);
  }

  async listSearch(i: number): Promise<void> {
    const today = new Date().toISOString().slice(0, 10);
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
    const queries: Record<string, string>[] = [
      { name: PATIENTS[i % PATIENTS.length]! },
      { name: patientName(i) },
      { name: TUTORS[i % TUTORS.length]!, from: today },
      { from: weekAgo, to: today },
      { transcription_status: 'completed', from: today },
      { external_id: `pet-${i % Math.max(1, this.#n)}` },
      { name: TUTORS[i % TUTORS.length]!, count: 'exact' },
    ];
    const query = new URLSearchParams(queries[i % queries.length]).toString();
    await this.client.send('GET /notes (list)', [200], 'GET', `/notes/v1/notes?${query}`);
  }

  async upsertContact(fresh: boolean): Promise<void> {
    const existing = this.#contacts.length > 0 && !fresh ? this.#contacts[Math.floor(Math.random() * this.#contacts.length)]! : undefined;
    const n = this.#n++;
    const externalId = existing ?? `erp-${n}`;
    const phone = `+55119${String(n).padStart(8, '0')}`;
    const body = existing
      ? JSON.stringify({ external_id: existing, name: `Tutor ${n}` })
      : JSON.stringify({ external_id: externalId, name: `Tutor ${n}`, phone });
    const answer = await this.client.send(
      'PUT /flow/v1/external/workspaces/{id}/contacts',
      [200, 201],
      'PUT',
      this.client.crm.contactsPath,
      {
        body,
        headers: json,
        crm: true,
      },
    );
    if (answer && !existing) this.#contacts.push(externalId);
  }

  #randomCompleted(): string | undefined {
    return this.completed[Math.floor(Math.random() * this.completed.length)];
  }
}

/** A log line's message and error, or the line itself when it is not one JSON object. */
function logText(line: string): string {
  try {
    const { msg, err } = JSON.parse(line) as { msg?: string; err?: { message?: string } };
    return `${msg ?? ''}${err?.message ? `: ${err.message}` : ''}`;
  } catch {
    return line;
  }
}

const patientName = (i: number) => `${PATIENTS[i % PATIENTS.length]} ${TUTORS[Math.floor(i / PATIENTS.length) % TUTORS.length]}`;
const idOf = (answer: Answer) => (JSON.parse(answer.body) as { data: { id: string } }).data.id;
const round2 = (values: number[]) => values.map((v) => Number(v.toFixed(2)));

function cpuOf(pids: { api: number[]; worker: number }) {
  return { api: pids.api.reduce((sum, pid) => sum + cpuSeconds(pid), 0), worker: cpuSeconds(pids.worker) };
}

function summarize(
  stats: RouteStats,
  options: DayBenchOptions,
  m: {
    completed: number;
    created: number;
    pendingAtEnd: number;
    failed: number;
    cpu: { api_s: number; worker_s: number };
    load: { before: number[]; after: number[] };
  },
) {
  const order = (route: string) => (ROUTE_ORDER.includes(route) ? ROUTE_ORDER.indexOf(route) : ROUTE_ORDER.length);
  const routes = Object.fromEntries(
    stats
      .routes()
      .filter((route) => route !== BARE_ROUTE)
      .sort((a, b) => order(a) - order(b))
      .map((route) => [route, stats.summary(route, options.seconds)]),
  );
  return {
    seconds: options.seconds,
    scale: options.scale,
    errors: stats.errorCount,
    read_p99_ms: stats.p99Of(READ_ROUTES),
    bare_read_p99_ms: stats.p99Of([BARE_ROUTE]),
    read_p99_target_ms: READ_P99_TARGET_MS,
    routes,
    baseline: { [BARE_ROUTE]: stats.summary(BARE_ROUTE, options.seconds) },
    worker_notes_per_minute: m.completed / (options.seconds / 60),
    notes_created_per_minute: m.created / (options.seconds / 60),
    notes_pending_at_end: m.pendingAtEnd,
    notes_failed: m.failed,
    cpu_seconds: m.cpu,
    /** The two api processes' CPU over the window per request they answered (uploads, exports and all). */
    api_cpu_ms_per_request: (m.cpu.api_s * 1000) / Object.values(routes).reduce((sum, r) => sum + r.requests, 0),
    loadavg: m.load,
  };
}

type DaySummary = ReturnType<typeof summarize>;

function rowsOf(s: DaySummary): Row[] {
  // value: throughput and p50 / p99 of the route; ratio: its errors when there are any.
  const rows: Row[] = Object.entries({ ...s.routes, ...s.baseline }).map(([route, r]) => ({
    measurement: route,
    value: `${r.per_second.toFixed(2).padStart(6)}/s  ${fmt.ms(r.p50_ms).padStart(7)} / ${fmt.ms(r.p99_ms).padStart(7)}`,
    baseline: '',
    ratio: r.errors === 0 ? '' : `${r.errors} errors`,
    target: READ_ROUTES.includes(route) ? `p99 < ${s.read_p99_target_ms} ms` : '',
  }));
  rows.push(
    {
      measurement: 'reads p99 (note, status, list) vs the bare PK route',
      value: fmt.ms(s.read_p99_ms),
      baseline: fmt.ms(s.bare_read_p99_ms),
      ratio: fmt.ratio(s.read_p99_ms / s.bare_read_p99_ms),
      target: `< ${s.read_p99_target_ms} ms`,
    },
    { measurement: 'errors (unexpected answers, failed notes)', value: String(s.errors), baseline: '', ratio: '', target: '0' },
    {
      measurement: 'worker: notes completed per minute (created per minute)',
      value: s.worker_notes_per_minute.toFixed(1),
      baseline: `(${s.notes_created_per_minute.toFixed(1)})`,
      ratio: '',
    },
    { measurement: 'notes still pending at the end', value: String(s.notes_pending_at_end), baseline: '', ratio: '' },
    {
      measurement: 'CPU in the window: two api processes, worker',
      value: `${s.cpu_seconds.api_s.toFixed(1)} s (${s.api_cpu_ms_per_request.toFixed(1)} ms/request), ${s.cpu_seconds.worker_s.toFixed(1)} s`,
      baseline: '',
      ratio: '',
    },
    {
      measurement: 'load average, window start → end',
      value: `${s.loadavg.before.join(' ')} → ${s.loadavg.after.join(' ')}`,
      baseline: '',
      ratio: '',
    },
  );
  return rows;
}
