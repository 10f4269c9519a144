import { FIXTURE_MP3 } from './lib/audio.ts';
import type { BenchDatabase } from './lib/database.ts';
import { uploadFile } from './lib/multipart.ts';
import { fmt, median, percentile, progress, type Row } from './lib/report.ts';
import type { VetflowServer } from './lib/servers.ts';

export interface PipelineBenchOptions {
  vetflow: VetflowServer;
  database: BenchDatabase;
  /** Notes uploaded one at a time, each waited for: latency with an idle queue. */
  sequential: number;
  /** Notes uploaded `burstConcurrency` at a time, all waited for: throughput. */
  burst: number;
  burstConcurrency: number;
}

const DONE = new Set(['completed', 'failed']);

/** Small uploads (the 23.7 s fixture) through the whole pipeline with the sandbox provider. */
export async function runPipelineBench(options: PipelineBenchOptions) {
  const { vetflow } = options;
  const uploadMs: number[] = [];
  const latencyMs: number[] = [];
  let polls = 0;
  progress(`pipeline: ${options.sequential} notes one at a time`);
  const ids: string[] = [];
  for (let i = 0; i < options.sequential; i++) {
    const { id, ms } = await createNote(vetflow, i);
    const created = performance.now();
    uploadMs.push(ms);
    ids.push(id);
    // A tight poll: the next request leaves as soon as the previous answer arrives (~1 ms apart).
    for (;;) {
      polls += 1;
      const status = await statusOf(vetflow, id);
      if (DONE.has(status)) {
        if (status !== 'completed') throw new Error(`note ${id} ended ${status}`);
        break;
      }
    }
    latencyMs.push(performance.now() - created);
  }
  const stages = await stageTimes(options.database, ids);

  progress(`pipeline: ${options.burst} notes, ${options.burstConcurrency} at a time`);
  const burst = await runBurst(options);

  const summary = summarize(options, { uploadMs, latencyMs, polls, stages, burst });
  return { summary, rows: rowsOf(summary) };
}

function summarize(
  options: PipelineBenchOptions,
  m: {
    uploadMs: number[];
    latencyMs: number[];
    polls: number;
    stages: Awaited<ReturnType<typeof stageTimes>>;
    burst: Awaited<ReturnType<typeof runBurst>>;
  },
) {
  const { uploadMs, latencyMs, polls, stages, burst } = m;
  return {
    sequential: {
      notes: options.sequential,
      upload_ms_median: median(uploadMs),
      completed_ms_median: median(latencyMs),
      completed_ms_p95: percentile(latencyMs, 95),
      queue_wait_ms_median: median(stages.queueWaitMs),
      processing_ms_median: median(stages.processingMs),
      notes_per_second: options.sequential / ((sum(uploadMs) + sum(latencyMs)) / 1000),
      polls_per_note: polls / options.sequential,
    },
    burst: {
      notes: options.burst,
      concurrency: options.burstConcurrency,
      notes_per_second: burst.notesPerSecond,
      completed_ms_median: median(burst.serverLatencyMs),
      completed_ms_p95: percentile(burst.serverLatencyMs, 95),
    },
  };
}

export async function createNote(vetflow: VetflowServer, i: number): Promise<{ id: string; ms: number }> {
  const response = await uploadFile({
    url: `${vetflow.baseUrl}/notes/v1/notes`,
    filePath: FIXTURE_MP3,
    fileName: 'consultation.mp3',
    contentType: 'audio/mpeg',
    fields: { metadata: JSON.stringify({ name: `Bench ${i}`, gender: 'female' }) },
    headers: { 'x-api-key': vetflow.apiKey },
  });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${response.body.slice(0, 500)}`);
  return { id: (JSON.parse(response.body) as { data: { id: string } }).data.id, ms: response.ms };
}

async function statusOf(vetflow: VetflowServer, id: string): Promise<string> {
  const response = await fetch(`${vetflow.baseUrl}/notes/v1/notes/${id}/status`, { headers: { 'x-api-key': vetflow.apiKey } });
  if (response.status !== 200) throw new Error(`status answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { status: string }).status;
}

/** Throughput: `burst` uploads, `burstConcurrency` in flight, until the last note is done. */
async function runBurst(options: PipelineBenchOptions) {
  const ids: string[] = [];
  let next = 0;
  const started = performance.now();
  const uploader = async () => {
    while (next < options.burst) {
      const i = next++;
      ids.push((await createNote(options.vetflow, options.sequential + i)).id);
    }
  };
  await Promise.all(Array.from({ length: options.burstConcurrency }, uploader));
  // Watching the table directly keeps thousands of status polls from competing with the workers.
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [row] = await options.database.query<{ done: string }>(
      `SELECT count(*) AS done FROM notes WHERE id = ANY($1) AND transcription_status IN ('completed', 'failed')`,
      [ids],
    );
    if (Number(row?.done) === ids.length) break;
    if (Date.now() > deadline) throw new Error(`burst: only ${row?.done} of ${ids.length} notes done after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const stages = await stageTimes(options.database, ids);
  return { notesPerSecond: ids.length / seconds, serverLatencyMs: stages.totalMs };
}

/** Server-side stages of each note: created → picked up by a worker → completed. */
async function stageTimes(database: BenchDatabase, ids: string[]) {
  const rows = await database.query<{ wait_ms: number; work_ms: number; total_ms: number }>(
    `SELECT extract(epoch FROM processing_started_at - created_at) * 1000 AS wait_ms,
            extract(epoch FROM completed_at - processing_started_at) * 1000 AS work_ms,
            extract(epoch FROM completed_at - created_at) * 1000 AS total_ms
       FROM notes WHERE id = ANY($1) AND transcription_status = 'completed'`,
    [ids],
  );
  return {
    queueWaitMs: rows.map((row) => Number(row.wait_ms)),
    processingMs: rows.map((row) => Number(row.work_ms)),
    totalMs: rows.map((row) => Number(row.total_ms)),
  };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

type PipelineSummary = ReturnType<typeof summarize>;

function rowsOf(s: PipelineSummary): Row[] {
  const seq = s.sequential;
  return [
    { measurement: `small upload → 201 (median of ${seq.notes})`, value: fmt.ms(seq.upload_ms_median), baseline: '', ratio: '' },
    {
      measurement: '201 → completed, idle queue, median',
      value: fmt.ms(seq.completed_ms_median),
      baseline: '1000 ms',
      ratio: fmt.ratio(seq.completed_ms_median / 1000),
      target: '< 1 s',
    },
    { measurement: '201 → completed, idle queue, p95', value: fmt.ms(seq.completed_ms_p95), baseline: '', ratio: '' },
    {
      measurement: '  of which: created → worker picks it up',
      value: fmt.ms(seq.queue_wait_ms_median),
      baseline: '4 ms (notes)',
      ratio: fmt.ratio(seq.queue_wait_ms_median / 4),
    },
    { measurement: '  of which: transcribe + section + save', value: fmt.ms(seq.processing_ms_median), baseline: '', ratio: '' },
    { measurement: 'notes/s, one at a time (upload + wait)', value: fmt.perSecond(seq.notes_per_second, 'notes'), baseline: '', ratio: '' },
    {
      measurement: `notes/s, ${s.burst.notes} uploads ${s.burst.concurrency} at a time`,
      value: fmt.perSecond(s.burst.notes_per_second, 'notes'),
      baseline: '',
      ratio: '',
    },
    { measurement: '  created → completed under burst, median', value: fmt.ms(s.burst.completed_ms_median), baseline: '', ratio: '' },
    { measurement: '  created → completed under burst, p95', value: fmt.ms(s.burst.completed_ms_p95), baseline: '', ratio: '' },
  ];
}
