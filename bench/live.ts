// A 30-minute consultation through the `openai` provider against a local server whose latency is
// 0.3 s + 1 s per 20 s of audio received (a GPU whisper at 20× real time), with OpenAI's request
// limits: captured live (30 s m4a parts sent at 30× real time, then `complete`) against the same
// audio uploaded in one m4a file at the end, same run, same processes. Measured: `complete` →
// `completed` (median of BENCH_LIVE_RUNS visits) against the upload's 201 → `completed`, and the
// worker's peak RSS growth over a whole visit. Run: `node bench/live.ts` (DATABASE_URL: a Postgres
// server to make a fresh database on; embedded otherwise). Needs ffmpeg on PATH.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { toneParts } from '../test/helpers/live-parts.ts';
import { startServer } from '../test/helpers/processes.ts';
import { startFakeSpeechServer } from '../test/providers/fake-speech-server.ts';
import { toneFile } from '../test/providers/tone-audio.ts';
import { createBenchDatabase } from './lib/database.ts';
import { watchProcess } from './lib/proc.ts';
import { fmt, printTable, progress } from './lib/report.ts';
import { startVetflow } from './lib/servers.ts';

const SECONDS = 1800;
const PART_SECONDS = 30;
const SPEED = 30;
const RUNS = Number(process.env.BENCH_LIVE_RUNS ?? 3);

progress('live: making the 30-minute m4a and its parts (once per machine)');
const whole = await readFile(await toneFile('m4a', SECONDS));
const parts = await toneParts(
  Array.from({ length: SECONDS / PART_SECONDS + 1 }, (_, i) => i * PART_SECONDS),
  () => 'm4a',
  SECONDS,
);

const speech = await startFakeSpeechServer({ msPerAudioSecond: 50, msPerRequest: 300 });
const workDir = await mkdtemp(path.join(os.tmpdir(), 'vetflow-bench-live-'));
const database = process.env.DATABASE_URL ? await createBenchDatabase(process.env.DATABASE_URL) : undefined;
const env = {
  ...(database ? { DATABASE_URL: database.url } : {}),
  DATA_DIR: path.join(workDir, 'data'),
  TRANSCRIPTION_PROVIDER: 'openai',
  TRANSCRIPTION_BASE_URL: speech.baseUrl,
  JOB_POLLING_INTERVAL_SECONDS: '0.5',
  // To measure the other side of the trade-off (docs/notes-live.md): LIVE_PART_REQUEST_SECONDS=0 npm run bench -- live
  ...(process.env.LIVE_PART_REQUEST_SECONDS ? { LIVE_PART_REQUEST_SECONDS: process.env.LIVE_PART_REQUEST_SECONDS } : {}),
};
const vetflow = await startVetflow({ ...env, ...(database ? { ROLE: 'api' } : {}) });
const worker = database ? await startServer({ ...env, ROLE: 'worker' }) : undefined;
const workerPid = worker?.child.pid ?? vetflow.pid;

async function api(method: string, url: string, body?: Uint8Array | object | FormData) {
  const binary = body instanceof Uint8Array;
  const form = body instanceof FormData;
  const response = await fetch(`${vetflow.baseUrl}/notes/v1${url}`, {
    method,
    headers: { 'x-api-key': vetflow.apiKey, ...(body && !binary && !form ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: binary || form ? (body as RequestInit['body']) : JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { data: { id: string } };
}

async function completed(id: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${vetflow.baseUrl}/notes/v1/notes/${id}/status`, { headers: { 'x-api-key': vetflow.apiKey } });
    const { status } = (await response.json()) as { status: string };
    if (status === 'completed') return;
    if (status === 'failed') throw new Error(`note ${id} failed`);
    await sleep(25);
  }
}

/** Where the time after `complete` went, in ms from `complete` (one row per visit). */
interface Breakdown {
  /** The note's job took the note. */
  noteJob: number;
  /** The last part's request reached the speech server, and its answer left it. */
  lastPartSent: number;
  lastPartAnswered: number;
  /** The note was stored as completed. */
  completed: number;
}
const breakdowns: Breakdown[] = [];
/** Seconds of audio the speech server heard per visit (words heard: one a second), the overlaps included. */
const heardSeconds: number[] = [];
const stepNames: Record<keyof Breakdown, string> = {
  noteJob: "the note's job starts",
  lastPartSent: "the last part's request reaches the server (negative: before complete)",
  lastPartAnswered: 'its answer leaves the server',
  completed: 'the note is stored completed',
};

/** One visit: parts sent as they "end" at SPEED× real time, then complete; ms from complete to completed. */
async function visit(): Promise<number> {
  const { id } = (await api('POST', '/notes/live', { name: 'Bench' })).data;
  const firstRequest = speech.requests.length;
  const started = Date.now();
  for (const [i, part] of parts.entries()) {
    await sleep(Math.max(0, started + ((i + 1) * PART_SECONDS * 1000) / SPEED - Date.now()));
    await api('PUT', `/notes/${id}/parts/${i + 1}`, new Uint8Array(part));
  }
  const completing = performance.now();
  const completingAt = Date.now();
  const requestsBefore = speech.requests.length;
  await api('POST', `/notes/${id}/complete`, { parts: parts.length });
  await completed(id);
  const elapsed = performance.now() - completing;
  heardSeconds.push(speech.requests.slice(firstRequest).reduce((sum, request) => sum + request.seconds.length, 0));
  const last = speech.requests.slice(Math.max(0, requestsBefore - 4)).find((request) => request.seconds.includes(SECONDS - 1));
  const [row] = database
    ? await database.query<{ started: Date; done: Date }>(
        'SELECT processing_started_at AS started, completed_at AS done FROM notes WHERE id = $1',
        [id],
      )
    : [];
  if (last && row)
    breakdowns.push({
      noteJob: row.started.getTime() - completingAt,
      lastPartSent: last.receivedAt - completingAt,
      lastPartAnswered: last.at - completingAt,
      completed: row.done.getTime() - completingAt,
    });
  return elapsed;
}

async function upload(): Promise<number> {
  const form = new FormData();
  form.append('metadata', JSON.stringify({ name: 'Bench' }));
  form.append('audio', new Blob([new Uint8Array(whole)]), 'consultation.m4a');
  const { id } = (await api('POST', '/notes', form)).data;
  const started = performance.now();
  await completed(id);
  return performance.now() - started;
}

try {
  progress('live: warm-up visit');
  await visit();
  const live: number[] = [];
  let rssGrowth = 0;
  for (let run = 1; run <= RUNS; run++) {
    progress(`live: visit ${run} of ${RUNS}`);
    const { result, memory } = await watchProcess(workerPid, visit);
    live.push(result);
    rssGrowth = Math.max(rssGrowth, memory.growthBytes);
  }
  progress('live: the same audio uploaded in one piece');
  const uploads = [await upload(), await upload()];
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const liveMs = median(live);
  const uploadMs = median(uploads);
  printTable('Live capture: 30-minute m4a, fake server at 0.3 s + 1 s per 20 s of audio, parts of 30 s at 30× real time', [
    {
      measurement: 'complete → completed (live, median) vs 201 → completed (one-piece upload)',
      value: fmt.ms(liveMs),
      baseline: fmt.ms(uploadMs),
      ratio: fmt.ratio(uploadMs / liveMs),
      target: '≤ 5 s, ≥ 8×',
    },
    {
      measurement: 'live runs',
      value: live.map((ms) => fmt.ms(ms)).join(', '),
      baseline: uploads.map((ms) => fmt.ms(ms)).join(', '),
      ratio: '',
    },
    {
      measurement: 'audio heard by the speech server per visit (the overlaps heard twice)',
      value: `${median(heardSeconds.slice(-RUNS))} s`,
      baseline: `${SECONDS} s`,
      ratio: fmt.ratio(median(heardSeconds.slice(-RUNS)) / SECONDS),
    },
    { measurement: 'worker peak RSS growth over a visit', value: fmt.mb(rssGrowth), baseline: '', ratio: '', target: '< 100 MB' },
    ...(['noteJob', 'lastPartSent', 'lastPartAnswered', 'completed'] as const).map((step) => ({
      measurement: `  after complete: ${stepNames[step]}`,
      value: breakdowns
        .slice(-RUNS)
        .map((row) => fmt.ms(row[step]))
        .join(', '),
      baseline: '',
      ratio: '',
    })),
  ]);
  process.stdout.write(
    `BENCH_RESULT ${JSON.stringify({ live: { live, uploads, rssGrowth, heardSeconds: heardSeconds.slice(-RUNS), afterComplete: breakdowns.slice(-RUNS) } })}\n`,
  );
} catch (error) {
  // What the servers said last is usually why.
  for (const [name, output] of [
    ['api', vetflow.output],
    ['worker', worker?.output ?? []],
  ] as const)
    process.stderr.write(
      `--- last lines of the ${name} process (exit ${name === 'api' ? 'see above' : worker?.child.exitCode}):\n${output.slice(-15).join('\n')}\n`,
    );
  throw error;
} finally {
  await worker?.stop();
  await vetflow.stop();
  await speech.close();
  await database?.drop();
  await rm(workDir, { recursive: true, force: true });
}
