// Many clinics on one worker (docs/benchmarks.md, "Tenants"): one clinic uploads its backlog of
// FLOOD notes, then QUIET other clinics one each, all at once, on one ROLE=all process whose transcription server
// answers after a fixed latency per second of audio (the fake speech server). Measured:
// - each quiet clinic's note, upload → completed, against the same note alone on the idle system
//   (median of IDLE_RUNS), as p99 over the quiet clinics (PROCESSING_ORDER=fair);
// - the flooding clinic's total time (its first upload → its last note completed) with fair shares
//   against first come, first served (PROCESSING_ORDER=fifo, today's order before fair shares);
// - notes per minute of one worker at TRANSCRIPTION_CONCURRENCY 1, 4, 8, 16, the latency fixed
//   (notes spread over the clinics, so the per-clinic cap measures nothing here).
// Times are read from the notes themselves (created_at, completed_at): polling the API for 320
// notes would only load the process it measures. One database and the same clinics throughout; a
// fresh process per setting.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClinic } from '../src/notes/clinics/clinics.service.ts';
import { openPostgres } from '../src/platform/db/client.ts';
import { startServer } from '../test/helpers/processes.ts';
import { startFakeSpeechServer } from '../test/providers/fake-speech-server.ts';
import { toneFile } from '../test/providers/tone-audio.ts';
import { ROOT } from './lib/audio.ts';
import { createBenchDatabase } from './lib/database.ts';
import { fmt, median, percentile, progress, type Row } from './lib/report.ts';

export interface TenantsBenchOptions {
  adminUrl: string;
  workDir: string;
  floodNotes: number;
  quietClinics: number;
  /** Slots of the worker in the flood scenario (TRANSCRIPTION_CONCURRENCY). */
  concurrency: number;
  /** Seconds of audio per note, and the speech server's latency per second of audio. */
  audioSeconds: number;
  msPerAudioSecond: number;
  idleRuns: number;
  /** Notes per slot in each throughput run (notes = slots × this). */
  notesPerSlot: number;
}

const THROUGHPUT_SLOTS = [1, 4, 8, 16] as const;
const UPLOADS_AT_ONCE = 4;

export async function runTenantsBench(options: TenantsBenchOptions) {
  const audio = new Uint8Array(await readFile(await toneFile('m4a', options.audioSeconds)));
  const speech = await startFakeSpeechServer({ msPerAudioSecond: options.msPerAudioSecond, msPerRequest: 0 });
  const database = await createBenchDatabase(options.adminUrl);
  const baseEnv = {
    DATABASE_URL: database.url,
    DATA_DIR: path.join(options.workDir, 'tenants-data'),
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: speech.baseUrl,
    JOB_POLLING_INTERVAL_SECONDS: '0.5',
    // 300 uploads from one key within seconds: the limiter runs, its ceiling is out of the way.
    RATE_LIMIT_ADMINISTRATOR_PER_MINUTE: '1000000000',
    // Sixteen slots and 24 uploads at once would queue for the default pool of 10 connections (and
    // at load ~20 time out waiting, answered 503): both orders get the same larger pool.
    DATABASE_POOL_MAX: '24',
    // At load ~20 (a shared machine) a new connection took over the 3 s default to open, and the
    // upload answered 503: the bench measures scheduling, not the outage path.
    DATABASE_CONNECT_TIMEOUT_MS: '30000',
    DATABASE_STATEMENT_TIMEOUT_MS: '30000',
    DATABASE_QUERY_TIMEOUT_MS: '31000',
  };
  /** A fresh vetflow process with `env` for the length of `fn`. */
  async function withVetflow<T>(env: Record<string, string>, fn: (baseUrl: string) => Promise<T>): Promise<T> {
    // As bench/lib/servers.ts starts vetflow, without the demo key (only an empty database's first start has one).
    const vetflow = await startServer({
      NODE_COMPILE_CACHE: path.join(ROOT, 'node_modules/.cache/node-compile-cache'),
      ...baseEnv,
      ...env,
    });
    try {
      return await fn(vetflow.baseUrl);
    } catch (error) {
      // What the server said about it: its warnings and errors.
      for (const line of vetflow.output.filter((text) => /"level":(40|50|60)/.test(text)).slice(-10)) process.stderr.write(`${line}\n`);
      throw error;
    } finally {
      await vetflow.stop();
    }
  }

  try {
    // The first start migrates; then the clinics, each with its administrator key.
    await withVetflow({}, async () => {});
    const keys = await createClinics(database.url, options.quietClinics + 1);
    const [floodKey, ...quietKeys] = keys;

    /** Uploads one note per key in `keys`, UPLOADS_AT_ONCE at a time; their ids in order. */
    async function uploadAll(baseUrl: string, uploadKeys: string[]): Promise<string[]> {
      const ids: string[] = new Array(uploadKeys.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(UPLOADS_AT_ONCE, uploadKeys.length) }, async () => {
          for (let i = next++; i < uploadKeys.length; i = next++) ids[i] = await upload(baseUrl, uploadKeys[i]!, audio);
        }),
      );
      return ids;
    }

    const flood = async (order: 'fair' | 'fifo') =>
      withVetflow(
        {
          PROCESSING_ORDER: order,
          TRANSCRIPTION_CONCURRENCY: String(options.concurrency),
          PROCESSING_MAX_PER_CLINIC: String(options.concurrency),
        },
        async (baseUrl) => {
          // Warm: the process's first note pays for its lazy imports.
          await waitCompleted(database, await uploadAll(baseUrl, [quietKeys[0]!]));
          const idle: number[] = [];
          for (let i = 0; i < options.idleRuns; i++) {
            const ids = await uploadAll(baseUrl, [quietKeys[i % quietKeys.length]!]);
            idle.push((await waitCompleted(database, ids)).times[0]!.ms);
          }
          progress(`tenants (${order}): ${options.floodNotes} notes of one clinic, then one of each of ${quietKeys.length} others at once`);
          // The backlog is in the queue first (the clinic that uploads 300 recordings at 9:00), then
          // the other clinics' consultations arrive together while it drains.
          const floodIds = await uploadAll(
            baseUrl,
            Array.from({ length: options.floodNotes }, () => floodKey!),
          );
          const quietIds = await Promise.all(quietKeys.map((key) => upload(baseUrl, key, audio)));
          const floodDone = await waitCompleted(database, floodIds);
          const quietDone = await waitCompleted(database, quietIds);
          return { idleMs: median(idle), quietMs: quietDone.times.map((t) => t.ms), floodTotalMs: floodDone.spanMs };
        },
      );

    const fair = await flood('fair');
    const fifo = await flood('fifo');

    const notesPerMinute: Record<string, number> = {};
    for (const slots of THROUGHPUT_SLOTS) {
      progress(`tenants: notes per minute at TRANSCRIPTION_CONCURRENCY=${slots}`);
      notesPerMinute[slots] = await withVetflow({ TRANSCRIPTION_CONCURRENCY: String(slots) }, async (baseUrl) => {
        await waitCompleted(database, await uploadAll(baseUrl, [quietKeys[0]!]));
        const count = slots * options.notesPerSlot;
        const ids = await uploadAll(
          baseUrl,
          Array.from({ length: count }, (_, i) => keys[i % keys.length]!),
        );
        const done = await waitCompleted(database, ids);
        return count / (done.workedMs / 60_000);
      });
    }

    const summary = {
      flood_notes: options.floodNotes,
      quiet_clinics: quietKeys.length,
      concurrency: options.concurrency,
      audio_seconds: options.audioSeconds,
      stt_ms_per_audio_second: options.msPerAudioSecond,
      idle_ms: fair.idleMs,
      quiet_p50_ms: median(fair.quietMs),
      quiet_p99_ms: percentile(fair.quietMs, 99),
      quiet_p99_ratio: percentile(fair.quietMs, 99) / fair.idleMs,
      fifo_quiet_p99_ratio: percentile(fifo.quietMs, 99) / fifo.idleMs,
      flood_total_ms: fair.floodTotalMs,
      fifo_flood_total_ms: fifo.floodTotalMs,
      flood_ratio: fair.floodTotalMs / fifo.floodTotalMs,
      notes_per_minute: notesPerMinute,
      stt_bound_notes_per_minute: Object.fromEntries(
        THROUGHPUT_SLOTS.map((slots) => [slots, (slots * 60_000) / (options.audioSeconds * options.msPerAudioSecond)]),
      ),
    };
    return { summary, rows: rowsOf(summary, fair, fifo) };
  } finally {
    await database.drop();
    await speech.close();
  }
}

function rowsOf(
  summary: {
    quiet_p99_ratio: number;
    flood_ratio: number;
    notes_per_minute: Record<string, number>;
    stt_bound_notes_per_minute: Record<string, number>;
  },
  fair: { idleMs: number; quietMs: number[]; floodTotalMs: number },
  fifo: { idleMs: number; quietMs: number[]; floodTotalMs: number },
): Row[] {
  return [
    {
      measurement: 'quiet clinic upload → completed, p99 (fair) vs alone on the idle system',
      value: fmt.ms(percentile(fair.quietMs, 99)),
      baseline: fmt.ms(fair.idleMs),
      ratio: fmt.ratio(summary.quiet_p99_ratio),
      target: '≤ 2×',
    },
    {
      measurement: 'quiet clinic upload → completed, p99 (fifo) vs alone on the idle system',
      value: fmt.ms(percentile(fifo.quietMs, 99)),
      baseline: fmt.ms(fifo.idleMs),
      ratio: fmt.ratio(percentile(fifo.quietMs, 99) / fifo.idleMs),
    },
    {
      measurement: "flooding clinic's total time, fair vs fifo",
      value: fmt.ms(fair.floodTotalMs),
      baseline: fmt.ms(fifo.floodTotalMs),
      ratio: fmt.ratio(summary.flood_ratio),
      target: '≤ 1.10×',
    },
    ...THROUGHPUT_SLOTS.map((slots) => ({
      measurement: `notes per minute, TRANSCRIPTION_CONCURRENCY=${slots} (baseline: the speech server's bound)`,
      value: summary.notes_per_minute[slots]!.toFixed(0),
      baseline: summary.stt_bound_notes_per_minute[slots]!.toFixed(0),
      ratio: fmt.ratio(summary.notes_per_minute[slots]! / summary.stt_bound_notes_per_minute[slots]!),
    })),
  ];
}

/** `count` clinics, each with its administrator key (created in the database, as the operator CLI does). */
async function createClinics(url: string, count: number): Promise<string[]> {
  const database = openPostgres(url, 2);
  try {
    const keys: string[] = [];
    for (let i = 0; i < count; i++) keys.push((await createClinic({ name: `Clínica ${i + 1}` }, database.db)).adminKey);
    return keys;
  } finally {
    await database.close();
  }
}

async function upload(baseUrl: string, key: string, audio: Uint8Array): Promise<string> {
  const form = new FormData();
  form.append('metadata', JSON.stringify({ name: 'Bench' }));
  form.append('audio', new Blob([audio]), 'consultation.m4a');
  const response = await fetch(`${baseUrl}/notes/v1/notes`, { method: 'POST', body: form, headers: { 'x-api-key': key } });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}

/**
 * Waits until every note of `ids` is completed (fails on a failed one); answers each note's
 * created → completed, the span from the first created to the last completed, and the span the
 * worker worked (first taken → last completed).
 */
async function waitCompleted(database: Awaited<ReturnType<typeof createBenchDatabase>>, ids: string[]) {
  for (;;) {
    const rows = await database.query<{ id: string; status: string; created: Date; started: Date | null; done: Date | null }>(
      `SELECT id, transcription_status AS status, created_at AS created, processing_started_at AS started, completed_at AS done
         FROM notes WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const failed = rows.find((row) => row.status === 'failed');
    if (failed) throw new Error(`note ${failed.id} failed`);
    if (rows.length === ids.length && rows.every((row) => row.status === 'completed')) {
      const first = Math.min(...rows.map((row) => row.created.getTime()));
      const firstTaken = Math.min(...rows.map((row) => row.started!.getTime()));
      const last = Math.max(...rows.map((row) => row.done!.getTime()));
      const byId = new Map(rows.map((row) => [row.id, row]));
      return {
        times: ids.map((id) => ({ id, ms: byId.get(id)!.done!.getTime() - byId.get(id)!.created.getTime() })),
        spanMs: last - first,
        workedMs: last - firstTaken,
      };
    }
    await sleep(200);
  }
}
