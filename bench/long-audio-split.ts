// The long-audio splitter alone, per format: a 60-minute consultation (the 50-minute WAV for wav,
// the longest the 100 MB upload limit lets through) cut into the chunks the default request
// limits plan, in a fresh `node` process each, as the worker does it (one cut at a time, to
// files). Prints the process's peak RSS growth over the cuts (VmRSS sampled every 10 ms plus the
// kernel's VmHWM, reset right before; child processes would be added, the splitter starts none)
// and the wall time. Run: `node bench/long-audio-split.ts [wav] [mp3] [m4a] [aac]`. Needs ffmpeg
// on PATH to make the test audio once per machine.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { planChunks } from '../src/audio/chunk-plan.ts';
import { openSplitter } from '../src/audio/split.ts';
import { loadConfig } from '../src/platform/config.ts';
import { type ToneFormat, toneFile } from '../test/providers/tone-audio.ts';
import { fmt, printTable, progress } from './lib/report.ts';

const FORMATS: ToneFormat[] = ['wav', 'mp3', 'm4a', 'aac'];
const SECONDS: Record<ToneFormat, number> = { wav: 3000, mp3: 3595, m4a: 3595, aac: 3595 };

interface SplitResult {
  format: ToneFormat;
  chunks: number;
  growthBytes: number;
  ms: number;
}

function kB(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** This process and its descendants, summed. */
function treeRss(pid = process.pid): number {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone meanwhile
  }
  return kB(pid, 'VmRSS') + children.reduce((sum, child) => sum + treeRss(child), 0);
}

async function measure(format: ToneFormat): Promise<SplitResult> {
  const file = await toneFile(format, SECONDS[format]);
  const config = loadConfig({});
  const plan = planChunks(SECONDS[format], statSync(file).size, {
    maxBytes: config.TRANSCRIPTION_MAX_REQUEST_BYTES,
    maxSeconds: config.TRANSCRIPTION_MAX_REQUEST_SECONDS,
    overlapSeconds: config.TRANSCRIPTION_CHUNK_OVERLAP_SECONDS,
    concurrency: config.TRANSCRIPTION_CHUNK_CONCURRENCY,
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vetflow-bench-split-'));
  writeFileSync('/proc/self/clear_refs', '5');
  const baseline = treeRss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss());
  }, 10);
  const started = performance.now();
  const splitter = await openSplitter(file, format);
  try {
    // As the worker: every chunk asked for at once, the splitter cuts them one after the other.
    await Promise.all(
      plan.map(async (chunk, index) => {
        const out = path.join(dir, `chunk-${index}.${format}`);
        await splitter.cut(chunk.start, index === plan.length - 1 ? Number.POSITIVE_INFINITY : chunk.end, out);
        rmSync(out);
      }),
    );
  } finally {
    splitter.close();
    clearInterval(timer);
    rmSync(dir, { recursive: true, force: true });
  }
  const ms = performance.now() - started;
  peak = Math.max(peak, treeRss(), kB(process.pid, 'VmHWM'));
  return { format, chunks: plan.length, growthBytes: peak - baseline, ms };
}

if (process.argv[2] === '--child') {
  process.stdout.write(`${JSON.stringify(await measure(process.argv[3] as ToneFormat))}\n`);
} else {
  const selected = process.argv.slice(2).length > 0 ? (process.argv.slice(2) as ToneFormat[]) : FORMATS;
  const results: SplitResult[] = [];
  for (const format of selected) {
    progress(`long audio split: ${format}`);
    // The audio is made here first, so the child measures the cuts alone.
    await toneFile(format, SECONDS[format]);
    const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', format], { encoding: 'utf8' });
    results.push(JSON.parse(output.trim().split('\n').at(-1)!) as SplitResult);
  }
  printTable(
    'Long audio split alone, fresh process per format (default request limits)',
    results.flatMap((result) => [
      {
        measurement: `${result.format} (${SECONDS[result.format]} s, ${result.chunks} chunks): peak RSS growth`,
        value: fmt.mb(result.growthBytes),
        baseline: '',
        ratio: '',
        target: '< 100 MB',
      },
      { measurement: `${result.format}: wall time`, value: fmt.ms(result.ms), baseline: '', ratio: '' },
    ]),
  );
  process.stdout.write(`BENCH_RESULT ${JSON.stringify({ longAudioSplit: results })}\n`);
}
