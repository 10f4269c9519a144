// A 60-minute consultation through the `openai` provider against a local server whose latency
// grows with the audio it receives (1 s per minute, like a GPU server), with OpenAI's request
// limits (25 MiB, 1400 s): time from 201 to `completed` with the chunks sent one at a time
// (TRANSCRIPTION_CHUNK_CONCURRENCY=1) and at the default concurrency, in the same run, each on a
// fresh database and a fresh `node src/main.ts`; plus the worker's peak RSS growth meanwhile.
// Run: `node bench/long-audio.ts` (DATABASE_URL: a Postgres server to make fresh databases on;
// embedded otherwise). Env: BENCH_AUDIO_SECONDS (default 3595), BENCH_MS_PER_AUDIO_MINUTE (1000),
// BENCH_FORMAT (mp3; also wav, m4a, aac — a WAV must stay under the 100 MB upload limit: 3000 s).
// Needs ffmpeg on PATH for the fake server (it decodes each chunk, as a real server does).

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from '../test/helpers/processes.ts';
import { startFakeSpeechServer } from '../test/providers/fake-speech-server.ts';
import { type ToneFormat, toneFile } from '../test/providers/tone-audio.ts';
import { createBenchDatabase } from './lib/database.ts';
import { watchProcess } from './lib/proc.ts';
import { fmt, printTable, progress } from './lib/report.ts';
import { startVetflow } from './lib/servers.ts';

const AUDIO_SECONDS = Number(process.env.BENCH_AUDIO_SECONDS ?? 3595);
const MS_PER_AUDIO_MINUTE = Number(process.env.BENCH_MS_PER_AUDIO_MINUTE ?? 1000);
const FORMAT = (process.env.BENCH_FORMAT ?? 'mp3') as ToneFormat;

interface ModeResult {
  ms: number;
  requests: number;
  rssGrowthBytes: number;
  /** The warm-up note's, in the freshly started worker (includes the process's own growth). */
  firstNoteRssGrowthBytes: number;
}

async function runMode(label: string, file: string, env: Record<string, string>): Promise<ModeResult> {
  const speech = await startFakeSpeechServer({ msPerAudioSecond: MS_PER_AUDIO_MINUTE / 60 });
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'vetflow-bench-long-'));
  const database = process.env.DATABASE_URL ? await createBenchDatabase(process.env.DATABASE_URL) : undefined;
  const serverEnv = {
    ...(database ? { DATABASE_URL: database.url } : {}),
    DATA_DIR: path.join(workDir, 'data'),
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: speech.baseUrl,
    JOB_POLLING_INTERVAL_SECONDS: '0.5',
    ...env,
  };
  // On Postgres the API and the worker are separate processes, so the worker's RSS is the job's
  // alone (not the upload's); the embedded database allows only one process.
  const vetflow = await startVetflow({ ...serverEnv, ...(database ? { ROLE: 'api' } : {}) });
  const worker = database ? await startServer({ ...serverEnv, ROLE: 'worker' }) : undefined;
  const workerPid = worker?.child.pid ?? vetflow.pid;
  try {
    const audio = await readFile(file);
    const form = new FormData();
    form.append('metadata', JSON.stringify({ name: 'Bench' }));
    form.append('audio', new Blob([new Uint8Array(audio)]), `consultation.${FORMAT}`);
    const upload = async () => {
      const created = await fetch(`${vetflow.baseUrl}/notes/v1/notes`, {
        method: 'POST',
        body: form,
        headers: { 'x-api-key': vetflow.apiKey },
      });
      if (created.status !== 201) throw new Error(`upload answered ${created.status}: ${await created.text()}`);
      return ((await created.json()) as { data: { id: string } }).data.id;
    };
    const completed = async (id: string) => {
      for (;;) {
        const response = await fetch(`${vetflow.baseUrl}/notes/v1/notes/${id}/status`, { headers: { 'x-api-key': vetflow.apiKey } });
        const { status } = (await response.json()) as { status: string };
        if (status === 'completed') return;
        if (status === 'failed') throw new Error(`note ${id} failed`);
        await sleep(50);
      }
    };
    // A first note with an instant server warms the worker up (code compiled, heap grown to its
    // working size), so the RSS growth below is the job's, not the process's first steps.
    const latency = speech.msPerAudioSecond;
    speech.msPerAudioSecond = 0;
    const warmup = await watchProcess(workerPid, async () => completed(await upload()));
    speech.msPerAudioSecond = latency;
    const warmupRequests = speech.requests.length;
    progress(`long audio: ${label}`);
    const id = await upload();
    const started = performance.now();
    const { result, memory } = await watchProcess(workerPid, async () => {
      await completed(id);
      return performance.now() - started;
    });
    return {
      ms: result,
      requests: speech.requests.length - warmupRequests,
      rssGrowthBytes: memory.growthBytes,
      firstNoteRssGrowthBytes: warmup.memory.growthBytes,
    };
  } finally {
    await worker?.stop();
    await vetflow.stop();
    await speech.close();
    await database?.drop();
    await rm(workDir, { recursive: true, force: true });
  }
}

progress(`long audio: making a ${AUDIO_SECONDS} s ${FORMAT} (once per machine)`);
const file = await toneFile(FORMAT, AUDIO_SECONDS);
const sequential = await runMode('chunks one at a time', file, { TRANSCRIPTION_CHUNK_CONCURRENCY: '1' });
const concurrent = await runMode('chunks at the default concurrency', file, {});
const ratio = sequential.ms / concurrent.ms;
printTable(
  `Long audio: ${(AUDIO_SECONDS / 60).toFixed(0)}-minute ${FORMAT}, fake server at ${MS_PER_AUDIO_MINUTE} ms per audio minute, 25 MiB / 1400 s per request`,
  [
    {
      measurement: '201 → completed, default concurrency vs one chunk at a time',
      value: fmt.ms(concurrent.ms),
      baseline: fmt.ms(sequential.ms),
      ratio: fmt.ratio(ratio),
      target: '≥ 4×',
    },
    {
      measurement: 'requests to the server (concurrent vs sequential)',
      value: String(concurrent.requests),
      baseline: String(sequential.requests),
      ratio: '',
    },
    {
      measurement: 'worker peak RSS growth (concurrent vs sequential)',
      value: fmt.mb(concurrent.rssGrowthBytes),
      baseline: fmt.mb(sequential.rssGrowthBytes),
      ratio: '',
      target: '< 100 MB',
    },
    {
      measurement: 'the same, first note of a freshly started worker (instant server)',
      value: fmt.mb(concurrent.firstNoteRssGrowthBytes),
      baseline: fmt.mb(sequential.firstNoteRssGrowthBytes),
      ratio: '',
    },
  ],
);
process.stdout.write(`BENCH_RESULT ${JSON.stringify({ longAudio: { audioSeconds: AUDIO_SECONDS, sequential, concurrent, ratio } })}\n`);
