import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { writeWav } from './lib/audio.ts';
import { type UploadResponse, uploadFile } from './lib/multipart.ts';
import { type MemoryWindow, watchProcess } from './lib/proc.ts';
import { fmt, MB, median, progress, type Row } from './lib/report.ts';
import type { BenchServer, VetflowServer } from './lib/servers.ts';

export interface UploadBenchOptions {
  workDir: string;
  vetflow: VetflowServer;
  /** Where vetflow keeps stored audio ($DATA_DIR/audio), emptied between runs. */
  vetflowAudioDir: string;
  bare: BenchServer;
  bareDir: string;
  fileBytes: number;
  repetitions: number;
  concurrency: number;
}

interface Target {
  name: 'vetflow' | 'bare';
  server: BenchServer;
  url: string;
  headers: Record<string, string>;
  /** Files the target wrote, removed after each run so dirty pages do not pile up (the sandbox never reads them). */
  storedDir: string;
}

interface Run {
  mbps: number;
  memory: MemoryWindow;
}

const METADATA = JSON.stringify({ name: 'Rex', gender: 'male', external_id: 'bench' });

/** 100 MB through the raw disk, the bare multipart route and vetflow; one upload, then N at once. */
export async function runUploadBench(options: UploadBenchOptions) {
  const bigFile = path.join(options.workDir, 'upload.wav');
  const warmFile = path.join(options.workDir, 'warm-up.wav');
  const durationSeconds = await writeWav(bigFile, options.fileBytes);
  await writeWav(warmFile, 1_000_000);

  const targets: Target[] = [
    {
      name: 'bare',
      server: options.bare,
      url: `${options.bare.baseUrl}/upload`,
      headers: {},
      storedDir: options.bareDir,
    },
    {
      name: 'vetflow',
      server: options.vetflow,
      url: `${options.vetflow.baseUrl}/notes/v1/notes`,
      headers: { 'x-api-key': options.vetflow.apiKey },
      storedDir: options.vetflowAudioDir,
    },
  ];
  progress('upload: warm-up');
  // First requests pay for lazy imports and JIT warm-up; keep them out of the measurement.
  for (const target of targets) await send(target, warmFile);

  progress('upload: raw disk');
  const raw: number[] = [];
  for (let i = 0; i < options.repetitions; i++) raw.push(await rawDiskWrite(bigFile, path.join(options.workDir, 'raw-copy.bin')));

  // Alternate the two servers so drift on the shared machine hits both alike.
  const single: Record<Target['name'], Run[]> = { bare: [], vetflow: [] };
  for (let i = 0; i < options.repetitions; i++) {
    for (const target of targets) {
      progress(`upload: 1 × ${target.name}, run ${i + 1}`);
      single[target.name].push(await measure(target, bigFile, 1));
    }
  }
  // Eight streams swing more than one (the bare route's own aggregate moved 349-533 MB/s between
  // turns): alternated and repeated like the single uploads, medians compared.
  const many: Record<Target['name'], Run[]> = { bare: [], vetflow: [] };
  for (let i = 0; i < options.repetitions; i++) {
    for (const target of targets) {
      progress(`upload: ${options.concurrency} × ${target.name} at once, run ${i + 1}`);
      many[target.name].push(await measure(target, bigFile, options.concurrency));
    }
  }
  const concurrent: Record<Target['name'], Run> = { bare: medianRun(many.bare), vetflow: medianRun(many.vetflow) };

  const summary = summarize(options, durationSeconds, raw, single, concurrent);
  return { summary, rows: rowsOf(summary) };
}

function summarize(
  options: UploadBenchOptions,
  durationSeconds: number,
  raw: number[],
  single: Record<Target['name'], Run[]>,
  concurrent: Record<Target['name'], Run>,
) {
  return {
    file_bytes: options.fileBytes,
    file_duration_seconds: Math.round(durationSeconds),
    raw_disk_mbps: median(raw),
    single: {
      bare_mbps: median(single.bare.map((run) => run.mbps)),
      vetflow_mbps: median(single.vetflow.map((run) => run.mbps)),
      bare_rss_growth_mb: Math.max(...single.bare.map((run) => run.memory.growthBytes)) / MB,
      vetflow_rss_growth_mb: Math.max(...single.vetflow.map((run) => run.memory.growthBytes)) / MB,
      bare_cpu_seconds: median(single.bare.map((run) => run.memory.cpuSeconds)),
      vetflow_cpu_seconds: median(single.vetflow.map((run) => run.memory.cpuSeconds)),
    },
    concurrent: {
      uploads: options.concurrency,
      bare_mbps: concurrent.bare.mbps,
      vetflow_mbps: concurrent.vetflow.mbps,
      bare_rss_growth_mb: concurrent.bare.memory.growthBytes / MB,
      vetflow_rss_growth_mb: concurrent.vetflow.memory.growthBytes / MB,
    },
  };
}

async function measure(target: Target, file: string, uploads: number): Promise<Run> {
  const started = performance.now();
  const { result, memory } = await watchProcess(target.server.pid, () =>
    Promise.all(Array.from({ length: uploads }, () => send(target, file))),
  );
  const seconds = (performance.now() - started) / 1000;
  await rm(target.storedDir, { recursive: true, force: true });
  await mkdir(target.storedDir, { recursive: true });
  const bytes = result.reduce((sum, response) => sum + response.fileBytes, 0);
  return { mbps: bytes / MB / seconds, memory };
}

async function send(target: Target, file: string): Promise<UploadResponse> {
  const response = await uploadFile({
    url: target.url,
    filePath: file,
    fileName: path.basename(file),
    contentType: 'audio/wav',
    fields: { metadata: METADATA },
    headers: target.headers,
  });
  if (response.status !== 201) throw new Error(`${target.name} upload answered ${response.status}: ${response.body.slice(0, 500)}`);
  return response;
}

/** The median speed of some runs, with the largest memory growth any of them saw. */
function medianRun(runs: Run[]): Run {
  const worst = runs.reduce((a, b) => (b.memory.growthBytes > a.memory.growthBytes ? b : a));
  return { mbps: median(runs.map((run) => run.mbps)), memory: worst.memory };
}

/** The disk's own speed for the same bytes: stream the file to a new one, then fdatasync it. */
async function rawDiskWrite(source: string, target: string): Promise<number> {
  const started = performance.now();
  await pipeline(createReadStream(source, { highWaterMark: 1024 * 1024 }), createWriteStream(target));
  // fdatasync flushes the inode's dirty pages whichever descriptor asks.
  const handle = await open(target, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const { size } = await stat(target);
  await rm(target, { force: true });
  return size / MB / seconds;
}

type UploadSummary = ReturnType<typeof summarize>;

function rowsOf(s: UploadSummary): Row[] {
  const n = s.concurrent.uploads;
  return [
    { measurement: 'raw disk write + fdatasync', value: fmt.mbps(s.raw_disk_mbps), baseline: '', ratio: '' },
    {
      measurement: '1 upload, bare multipart route',
      value: fmt.mbps(s.single.bare_mbps),
      baseline: fmt.mbps(s.raw_disk_mbps),
      ratio: fmt.ratio(s.single.bare_mbps / s.raw_disk_mbps),
    },
    {
      measurement: '1 upload, vetflow vs bare route',
      value: fmt.mbps(s.single.vetflow_mbps),
      baseline: fmt.mbps(s.single.bare_mbps),
      ratio: fmt.ratio(s.single.vetflow_mbps / s.single.bare_mbps),
      target: '≥ 0.85×',
    },
    {
      measurement: '1 upload, vetflow vs raw disk',
      value: fmt.mbps(s.single.vetflow_mbps),
      baseline: fmt.mbps(s.raw_disk_mbps),
      ratio: fmt.ratio(s.single.vetflow_mbps / s.raw_disk_mbps),
    },
    {
      measurement: '1 upload, server RSS growth',
      value: fmt.mb(s.single.vetflow_rss_growth_mb * MB),
      baseline: fmt.mb(s.single.bare_rss_growth_mb * MB),
      ratio: fmt.ratio(s.single.vetflow_rss_growth_mb / s.single.bare_rss_growth_mb),
      target: 'bounded',
    },
    {
      measurement: '1 upload, server CPU time',
      value: `${s.single.vetflow_cpu_seconds.toFixed(2)} s`,
      baseline: `${s.single.bare_cpu_seconds.toFixed(2)} s`,
      ratio: fmt.ratio(s.single.vetflow_cpu_seconds / s.single.bare_cpu_seconds),
    },
    {
      measurement: `${n} concurrent uploads, aggregate`,
      value: fmt.mbps(s.concurrent.vetflow_mbps),
      baseline: fmt.mbps(s.concurrent.bare_mbps),
      target: '≥ 0.85×',
      ratio: fmt.ratio(s.concurrent.vetflow_mbps / s.concurrent.bare_mbps),
    },
    {
      measurement: `${n} concurrent uploads, server RSS growth`,
      value: fmt.mb(s.concurrent.vetflow_rss_growth_mb * MB),
      baseline: fmt.mb(s.concurrent.bare_rss_growth_mb * MB),
      ratio: fmt.ratio(s.concurrent.vetflow_rss_growth_mb / s.concurrent.bare_rss_growth_mb),
      target: '< 200 MB',
    },
  ];
}
