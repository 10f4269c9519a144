import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runDayBench } from './day.ts';
import { runImportCosts } from './imports.ts';
import { type BenchDatabase, createBenchDatabase } from './lib/database.ts';
import { rssBytes } from './lib/proc.ts';
import { fmt, printTable, progress } from './lib/report.ts';
import { type BenchServer, startBareReadServer, startBareUploadServer, startVetflow, type VetflowServer } from './lib/servers.ts';
import { runObservabilityBench } from './observability.ts';
import { runPipelineBench } from './pipeline.ts';
import { runReadsBench } from './reads.ts';
import { runRecordBench } from './record.ts';
import { runSectioningBench } from './sectioning.ts';
import { runTenantsBench } from './tenants.ts';
import { runUploadBench } from './upload.ts';

// npm run bench: a fresh Postgres database, a real `node src/main.ts` and bare Fastify baseline
// processes side by side; every figure is printed next to its baseline from this same run.
// Benchmarks print, never assert: a non-zero exit means something broke.
// `node bench/run.ts [idle] [upload] [pipeline] [reads] [contacts] [contacts-sync] [long-audio] [live] [sectioning] [record] [observability] [day] [tenants]` runs only the sections named (default: all).

const SECTIONS = [
  'idle',
  'upload',
  'pipeline',
  'reads',
  'contacts',
  'contacts-sync',
  'long-audio',
  'live',
  'sectioning',
  'record',
  'observability',
  'day',
  'tenants',
] as const;
const selected = new Set(process.argv.slice(2));
for (const name of selected) {
  if (!(SECTIONS as readonly string[]).includes(name)) {
    console.error(`unknown section ${name}; expected some of: ${SECTIONS.join(' ')}`);
    process.exit(2);
  }
}
const runs = (section: (typeof SECTIONS)[number]) => selected.size === 0 || selected.has(section);

const AUDIO_MAX_BYTES = 104_857_600;
const settings = {
  adminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  // Just under the default 100 MiB limit, which counts the file part alone.
  fileBytes: Number(process.env.BENCH_FILE_BYTES ?? AUDIO_MAX_BYTES - 64 * 1024),
  repetitions: Number(process.env.BENCH_REPETITIONS ?? 3),
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 8),
  sequentialNotes: Number(process.env.BENCH_SEQUENTIAL_NOTES ?? 20),
  burstNotes: Number(process.env.BENCH_BURST_NOTES ?? 40),
  burstConcurrency: Number(process.env.BENCH_BURST_CONCURRENCY ?? 4),
  readConnections: Number(process.env.BENCH_READ_CONNECTIONS ?? 50),
  readWarmupMs: Number(process.env.BENCH_READ_WARMUP_MS ?? 2_000),
  readDurationMs: Number(process.env.BENCH_READ_DURATION_MS ?? 8_000),
  listNotes: Number(process.env.BENCH_LIST_NOTES ?? 1_000_000),
  listConnections: Number(process.env.BENCH_LIST_CONNECTIONS ?? 4),
  listWarmupMs: Number(process.env.BENCH_LIST_WARMUP_MS ?? 1_000),
  listDurationMs: Number(process.env.BENCH_LIST_DURATION_MS ?? 5_000),
  observabilityRounds: Number(process.env.BENCH_OBSERVABILITY_ROUNDS ?? 3),
  idleRuns: Number(process.env.BENCH_IDLE_RUNS ?? 3),
  daySeconds: Number(process.env.BENCH_DAY_SECONDS ?? 60),
  dayWarmupSeconds: Number(process.env.BENCH_DAY_WARMUP_SECONDS ?? 5),
  dayScale: Number(process.env.BENCH_DAY_SCALE ?? 1),
  tenantsFloodNotes: Number(process.env.BENCH_TENANTS_FLOOD_NOTES ?? 300),
  tenantsQuietClinics: Number(process.env.BENCH_TENANTS_QUIET_CLINICS ?? 20),
  tenantsConcurrency: Number(process.env.BENCH_TENANTS_CONCURRENCY ?? 16),
  tenantsAudioSeconds: Number(process.env.BENCH_TENANTS_AUDIO_SECONDS ?? 30),
  tenantsMsPerAudioSecond: Number(process.env.BENCH_TENANTS_MS_PER_AUDIO_SECOND ?? 150),
  tenantsNotesPerSlot: Number(process.env.BENCH_TENANTS_NOTES_PER_SLOT ?? 4),
  /** How long vetflow idles after the last section before its RSS is read again. */
  settleMs: Number(process.env.BENCH_SETTLE_MS ?? 15_000),
};
// The administrator's per-key limit (1000/min) would answer 429 within a second of load; the
// limiter itself still runs on every request (one counter upsert), only its ceiling is raised.
const READS_RATE_LIMIT = '1000000000';

const cleanups: (() => Promise<unknown>)[] = [];
async function cleanUp() {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => console.error('cleanup failed:', error));
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    progress(`${signal}: cleaning up`);
    cleanUp().finally(() => process.exit(130));
  });
}

async function main() {
  const machine = { cpus: os.availableParallelism(), node: process.version, loadavg: os.loadavg().map((v) => Number(v.toFixed(2))) };
  process.stdout.write(
    `vetflow benchmarks (${selected.size === 0 ? 'all' : [...selected].join(' ')}) — ${machine.cpus} cores, Node ${machine.node}, load ${machine.loadavg.join(' ')}\n`,
  );

  if (runs('sectioning')) {
    progress('sectioning the corpus');
    printTable('Sectioning (rules sectioner, CPU in-process; baseline: sentence splitting alone)', await runSectioningBench());
    if (selected.size === 1) return;
  }

  if (runs('record')) {
    progress('exporting a 200-note patient record');
    const own = await createBenchDatabase(settings.adminUrl);
    try {
      printTable(
        'Patient record (prontuário) in-process through its service; baseline: the same record as TXT, or the 20-note PDF',
        await runRecordBench(own),
      );
    } finally {
      await own.drop();
    }
    if (selected.size === 1) return;
  }

  if (runs('idle')) {
    progress('importing each dependency in a fresh process');
    printTable(
      'Import cost per dependency (fresh node process each; value: RSS after the import → after a full GC, heap right after; baseline: the same process importing nothing)',
      importRows(runImportCosts()),
    );
  }

  const workDir = await mkdtemp(path.join(os.tmpdir(), 'vetflow-bench-'));
  cleanups.push(() => rm(workDir, { recursive: true, force: true }));

  // Metrics and traces: their own vetflow processes and database, before anything else loads the machine.
  let observability: Awaited<ReturnType<typeof runObservabilityBench>> | undefined;
  if (runs('observability')) {
    const own = await createBenchDatabase(settings.adminUrl);
    try {
      observability = await runObservabilityBench({
        database: own,
        workDir,
        connections: settings.readConnections,
        warmupMs: settings.readWarmupMs,
        durationMs: settings.readDurationMs,
        rounds: settings.observabilityRounds,
        idleRuns: settings.idleRuns,
      });
    } finally {
      await own.drop();
    }
    printTable(
      'Observability (GET /notes/{id}: keep-alive load generator, metrics off and on alternated; idle: medians of starts)',
      observability.rows,
    );
    if (selected.size === 1) {
      process.stdout.write(`BENCH_RESULT ${JSON.stringify({ machine, observability: observability.summary })}\n`);
      return;
    }
  }

  // The clinic day: its own database and three processes (two api, one worker), stopped before the
  // sections below start theirs, and before the reads section fills a clinic with a million notes.
  let day: Awaited<ReturnType<typeof runDayBench>> | undefined;
  if (runs('day')) {
    day = await runDayBench({
      adminUrl: settings.adminUrl,
      workDir,
      seconds: settings.daySeconds,
      warmupSeconds: settings.dayWarmupSeconds,
      scale: settings.dayScale,
      cleanups,
    });
    printTable(
      `Clinic day (two ROLE=api processes in turn, one ROLE=worker, sandbox transcription; ${settings.daySeconds} s after ${settings.dayWarmupSeconds} s of warm-up; ` +
        `mix ×${settings.dayScale} as in bench/day.ts; per-key rate limits raised to ${READS_RATE_LIMIT}/min; value: req/s  p50 / p99)`,
      day.rows,
    );
    for (const { error, count } of day.errors) process.stdout.write(`  error ×${count}: ${error}\n`);
    for (const { warning, count } of day.warnings) process.stdout.write(`  warning ×${count}: ${warning}\n`);
    if (selected.size === 1) {
      process.stdout.write(`BENCH_RESULT ${JSON.stringify({ machine, day: day.summary })}\n`);
      return;
    }
  }

  // Many clinics on one worker: its own database and processes, one setting after another.
  let tenants: Awaited<ReturnType<typeof runTenantsBench>> | undefined;
  if (runs('tenants')) {
    tenants = await runTenantsBench({
      adminUrl: settings.adminUrl,
      workDir,
      floodNotes: settings.tenantsFloodNotes,
      quietClinics: settings.tenantsQuietClinics,
      concurrency: settings.tenantsConcurrency,
      audioSeconds: settings.tenantsAudioSeconds,
      msPerAudioSecond: settings.tenantsMsPerAudioSecond,
      idleRuns: settings.idleRuns + 2,
      notesPerSlot: settings.tenantsNotesPerSlot,
    });
    printTable(
      `Tenants (one ROLE=all process; a backlog of ${settings.tenantsFloodNotes} notes of one clinic, then one of each of ${settings.tenantsQuietClinics} others at once, ` +
        `TRANSCRIPTION_CONCURRENCY=${settings.tenantsConcurrency}; ${settings.tenantsAudioSeconds} s m4a notes, fake speech server at ${settings.tenantsMsPerAudioSecond} ms per audio second)`,
      tenants.rows,
    );
    if (selected.size === 1) {
      process.stdout.write(`BENCH_RESULT ${JSON.stringify({ machine, tenants: tenants.summary })}
`);
      return;
    }
  }

  const database: BenchDatabase = await createBenchDatabase(settings.adminUrl);
  cleanups.push(() => database.drop());
  const dataDir = path.join(workDir, 'data');
  const bareDir = path.join(workDir, 'bare');
  await mkdir(bareDir);

  progress('starting vetflow and the bare baseline servers');
  const vetflow: VetflowServer = await startVetflow({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    AUDIO_MAX_BYTES: String(AUDIO_MAX_BYTES),
    // For profiling the server in place (e.g. `--cpu-prof --cpu-prof-dir=...`, or `--import` of a GC logger).
    ...(process.env.BENCH_VETFLOW_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_VETFLOW_NODE_OPTIONS } : {}),
    ...(runs('reads') ? { RATE_LIMIT_ADMINISTRATOR_PER_MINUTE: READS_RATE_LIMIT } : {}),
    // e.g. `--cpu-prof --cpu-prof-dir=<dir>`: the server's CPU profile, written when it stops.
    ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
  });
  cleanups.push(() => vetflow.stop());
  let bare: BenchServer | undefined;
  if (runs('upload') || runs('idle')) {
    bare = await startBareUploadServer(bareDir, AUDIO_MAX_BYTES);
    cleanups.push(() => bare!.stop());
  }
  let bareRead: BenchServer | undefined;
  if (runs('reads')) {
    // Same pool size as vetflow's (DATABASE_POOL_MAX, default 10).
    bareRead = await startBareReadServer(database.url, 10);
    cleanups.push(() => bareRead!.stop());
  }

  // Idle: the processes started, nothing requested yet (vetflow's workers and cron are running).
  await sleep(2_000);
  let idle: { vetflow_rss_mb: number; bare_rss_mb: number } | undefined;
  if (bare) {
    idle = { vetflow_rss_mb: rssBytes(vetflow.pid) / 1e6, bare_rss_mb: rssBytes(bare.pid) / 1e6 };
    printTable('Idle server', [
      {
        measurement: 'idle RSS, vetflow vs bare Fastify + multipart',
        value: fmt.mb(idle.vetflow_rss_mb * 1e6),
        baseline: fmt.mb(idle.bare_rss_mb * 1e6),
        ratio: fmt.ratio(idle.vetflow_rss_mb / idle.bare_rss_mb),
      },
    ]);
  }

  const upload =
    bare && runs('upload')
      ? await runUploadBench({
          workDir,
          vetflow,
          vetflowAudioDir: path.join(dataDir, 'audio'),
          bare,
          bareDir,
          fileBytes: settings.fileBytes,
          repetitions: settings.repetitions,
          concurrency: settings.concurrency,
        })
      : undefined;
  if (upload) {
    printTable(
      `Upload of ${fmt.mb(settings.fileBytes)} WAV over HTTP (MB = 10^6 bytes; speeds are medians of ${settings.repetitions}, RSS growth the worst)`,
      upload.rows,
    );
  }

  const pipeline = runs('pipeline')
    ? await runPipelineBench({
        vetflow,
        database,
        sequential: settings.sequentialNotes,
        burst: settings.burstNotes,
        burstConcurrency: settings.burstConcurrency,
      })
    : undefined;
  if (pipeline) printTable('Pipeline with the sandbox provider (23.7 s mp3 fixture)', pipeline.rows);

  const reads = bareRead
    ? await runReadsBench({
        vetflow,
        bare: bareRead,
        database,
        connections: settings.readConnections,
        warmupMs: settings.readWarmupMs,
        durationMs: settings.readDurationMs,
        listNotes: settings.listNotes,
        listConnections: settings.listConnections,
        listWarmupMs: settings.listWarmupMs,
        listDurationMs: settings.listDurationMs,
      })
    : undefined;
  if (reads) {
    printTable(
      `Reads (keep-alive load generator in its own process; ${settings.readConnections} connections, ${settings.readWarmupMs / 1000} s warm-up + ${settings.readDurationMs / 1000} s each; ` +
        `administrator rate limit raised to ${READS_RATE_LIMIT}/min; list: ${settings.listNotes.toLocaleString('en')} notes, ${settings.listConnections} connections, ${settings.listDurationMs / 1000} s each)`,
      reads.rows,
    );
    process.stdout.write(
      `\nEXPLAIN (ANALYZE, BUFFERS) of the slowest list request (${reads.slowestPlans.label}):\n${reads.slowestPlans.page}\n\n${reads.slowestPlans.count}\n`,
    );
  }

  // CRM contact upserts: their own app (in that child process) over real HTTP from loadgen, against
  // their own bare INSERT route, on a fresh database of the same server; after the load above so
  // the two do not share the CPUs.
  if (runs('contacts')) {
    process.stdout.write('\nCRM contact upserts (bench/contacts-upsert.ts, same server):\n');
    await runChild(['bench/contacts-upsert.ts'], { DATABASE_URL: database.url });
  }

  // ERP sync: batches of 100 against single PUTs, and the change feed (its own fresh database).
  if (runs('contacts-sync')) {
    process.stdout.write('\nERP sync: batch upserts and the change feed (bench/contacts-sync.ts, same server):\n');
    await runChild(['bench/contacts-sync.ts'], { DATABASE_URL: settings.adminUrl });
  }

  // A 60-minute consultation in chunks through a slow fake server: its own servers and databases.
  if (runs('live')) {
    process.stdout.write('\nLive consultations (bench/live.ts, same Postgres server):\n');
    await runChild(['bench/live.ts'], { DATABASE_URL: settings.adminUrl });
  }
  if (runs('long-audio')) {
    process.stdout.write('\nLong audio in chunks (bench/long-audio.ts, same Postgres server):\n');
    await runChild(['bench/long-audio.ts'], { DATABASE_URL: settings.adminUrl });
    process.stdout.write('\nLong audio split alone, every format (bench/long-audio-split.ts):\n');
    await runChild(['bench/long-audio-split.ts'], {});
  }

  // At once, the RSS still holds what the last section's load made V8 grow its heap to; V8's memory
  // reducer gives that back once the process has been idle for ~8 s. The second reading is what
  // the server keeps after the work: a leak would show there.
  const atOnce = rssBytes(vetflow.pid) / 1e6;
  progress(`vetflow RSS after the run: ${fmt.mb(atOnce * 1e6)}; idle for ${settings.settleMs / 1000} s`);
  await sleep(settings.settleMs);
  const after = { vetflow_rss_mb: atOnce, vetflow_rss_idle_mb: rssBytes(vetflow.pid) / 1e6, idle_ms: settings.settleMs };
  process.stdout.write(
    `\nvetflow RSS after the run: ${fmt.mb(after.vetflow_rss_mb * 1e6)} at once, ${fmt.mb(after.vetflow_rss_idle_mb * 1e6)} after ${settings.settleMs / 1000} s idle\n`,
  );
  process.stdout.write(
    `BENCH_RESULT ${JSON.stringify({ machine, settings: { ...settings, adminUrl: undefined }, idle, upload: upload?.summary, pipeline: pipeline?.summary, reads: reads?.summary, observability: observability?.summary, day: day?.summary, tenants: tenants?.summary, after })}\n`,
  );
}

function importRows(costs: ReturnType<typeof runImportCosts>) {
  const nothing = costs[0]!;
  return costs.map((cost) => ({
    measurement: `${cost.module}${cost.how === 'cjs' ? ' (require)' : ''}`,
    value: `${fmt.ms(cost.ms)}, ${fmt.mb(cost.rss_mb * 1e6)} → ${fmt.mb(cost.rss_after_gc_mb * 1e6)}, heap ${fmt.mb(cost.heap_mb * 1e6)}`,
    baseline: fmt.mb(nothing.rss_after_gc_mb * 1e6),
    ratio: fmt.ratio(cost.rss_after_gc_mb / nothing.rss_after_gc_mb),
  }));
}

function runChild(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

try {
  await main();
} catch (error) {
  console.error('benchmark failed:', error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
