import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startServer } from '../test/helpers/processes.ts';
import { measureIdle } from './idle.ts';
import type { BenchDatabase } from './lib/database.ts';
import { runLoad } from './lib/load.ts';
import { cpuSeconds } from './lib/proc.ts';
import { fmt, median, progress, type Row } from './lib/report.ts';
import { startVetflow, type VetflowServer } from './lib/servers.ts';
import { measureMetricsHooks } from './metrics-hooks.ts';
import { createNote } from './pipeline.ts';
import { waitCompleted } from './reads.ts';

export interface ObservabilityBenchOptions {
  database: BenchDatabase;
  workDir: string;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Rounds of (metrics off, metrics on) load, alternated so drift of the shared machine hits both. */
  rounds: number;
  /** Starts per configuration for the idle figures (medians). */
  idleRuns: number;
}

// The administrator's per-key limit would answer 429 within a second of load.
const RATE_LIMIT = '1000000000';

/**
 * What observability costs: GET /notes/{id} throughput of two vetflow processes on one database,
 * one without METRICS_PORT and one with it (HTTP metrics hooks on every request), loaded in turn;
 * then idle RSS and start-up time with metrics off, metrics on, and traces on (exporting to a local
 * sink), each the median of `idleRuns` starts.
 */
export async function runObservabilityBench(options: ObservabilityBenchOptions) {
  const { database } = options;
  const common = { DATABASE_URL: database.url, RATE_LIMIT_ADMINISTRATOR_PER_MINUTE: RATE_LIMIT };
  // One process creates the note (workers on), then stops; the two measured processes serve HTTP
  // only (ROLE=api), so no job or cron work of theirs lands in a measurement.
  progress('observability: creating the note to read');
  const setup: VetflowServer = await startVetflow({ ...common, DATA_DIR: path.join(options.workDir, 'obs-setup') });
  let id: string;
  try {
    id = (await createNote(setup, 0)).id;
    await waitCompleted(database, id);
  } finally {
    await setup.stop();
  }
  progress('observability: starting vetflow (ROLE=api) without and with METRICS_PORT');
  const api = { ...common, ROLE: 'api' };
  const off = await startServer({ ...api, DATA_DIR: path.join(options.workDir, 'obs-off') });
  const on = await startServer({ ...api, DATA_DIR: path.join(options.workDir, 'obs-on'), METRICS_PORT: '0' });
  const rows: Row[] = [];
  let summary: Record<string, number | number[]>;
  try {
    // Throughput swings with whatever else the machine runs; the server's own CPU time per answered
    // request (from /proc, warm-up included) is the steadier measure of what the hooks cost.
    const load = async (label: string, server: { baseUrl: string; child: { pid?: number } }) => {
      progress(`observability: ${label}, ${options.connections} connections, ${options.durationMs / 1000} s`);
      const cpuBefore = cpuSeconds(server.child.pid!);
      const result = await runLoad({
        url: server.baseUrl,
        paths: [`/notes/v1/notes/${id}`],
        headers: { 'x-api-key': setup.apiKey },
        connections: options.connections,
        warmupMs: options.warmupMs,
        durationMs: options.durationMs,
      });
      if (result.errors > 0 || (result.statuses['200'] ?? 0) !== result.requests) {
        throw new Error(`${label}: ${result.errors} errors, statuses ${JSON.stringify(result.statuses)}`);
      }
      return { rps: result.rps, cpuUs: ((cpuSeconds(server.child.pid!) - cpuBefore) / result.answered) * 1e6 };
    };
    const offRps: number[] = [];
    const onRps: number[] = [];
    const offCpu: number[] = [];
    const onCpu: number[] = [];
    // ABBA order: neither process is always first after the other's load.
    for (let round = 0; round < options.rounds; round++) {
      const pair = [
        async () => {
          const figures = await load('GET /notes/{id}, metrics off', off);
          offRps.push(figures.rps);
          offCpu.push(figures.cpuUs);
        },
        async () => {
          const figures = await load('GET /notes/{id}, metrics on', on);
          onRps.push(figures.rps);
          onCpu.push(figures.cpuUs);
        },
      ];
      if (round % 2 === 1) pair.reverse();
      for (const run of pair) await run();
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const overhead = 1 - mean(onRps) / mean(offRps);
    const cpuOverhead = median(onCpu) / median(offCpu) - 1;
    rows.push({
      measurement: `server CPU per GET /notes/{id} with metrics on (median of ${options.rounds} runs)`,
      value: `${median(onCpu).toFixed(0)} µs`,
      baseline: `${median(offCpu).toFixed(0)} µs`,
      ratio: fmt.ratio(median(onCpu) / median(offCpu)),
      target: `overhead ≤ 3 % (here ${(cpuOverhead * 100).toFixed(1)} %)`,
    });
    rows.push({
      measurement: `GET /notes/{id} with metrics on (mean of ${options.rounds} alternated runs)`,
      value: fmt.perSecond(mean(onRps), 'req'),
      baseline: fmt.perSecond(mean(offRps), 'req'),
      ratio: fmt.ratio(mean(onRps) / mean(offRps)),
      target: `(throughput: ${(overhead * 100).toFixed(1)} %)`,
    });
    summary = {
      metrics_on_rps: mean(onRps),
      metrics_off_rps: mean(offRps),
      overhead_percent: overhead * 100,
      cpu_us_per_request_on: median(onCpu),
      cpu_us_per_request_off: median(offCpu),
      cpu_overhead_percent: cpuOverhead * 100,
      metrics_on_runs: onRps.map(Math.round),
      metrics_off_runs: offRps.map(Math.round),
    };
  } finally {
    await on.stop();
    await off.stop();
  }

  progress('observability: the HTTP metrics hooks in process (inject, alternated rounds)');
  const hooks = await measureMetricsHooks();
  const offCpuUs = summary.cpu_us_per_request_off as number;
  rows.push({
    measurement: 'HTTP metrics hooks in process: time per injected request, with vs without',
    value: `${hooks.onUs.toFixed(1)} µs`,
    baseline: `${hooks.offUs.toFixed(1)} µs`,
    ratio: fmt.ratio(hooks.onUs / hooks.offUs),
    target: `+${hooks.addedUs.toFixed(1)} µs = ${((hooks.addedUs / offCpuUs) * 100).toFixed(1)} % of a real request's CPU`,
  });
  summary = { ...summary, hooks_added_us: hooks.addedUs, hooks_off_us: hooks.offUs, hooks_on_us: hooks.onUs };

  // Idle figures on the same (migrated) database; the trace sink accepts and drops every export.
  const sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  try {
    const idle = async (label: string, env: Record<string, string>) => {
      progress(`observability: idle, ${label}, ${options.idleRuns} starts`);
      return measureIdle(
        { ...common, DATA_DIR: path.join(options.workDir, `idle-${label.replace(/\W+/g, '-')}`), ...env },
        options.idleRuns,
      );
    };
    const plain = await idle('metrics and traces off', {});
    const metrics = await idle('metrics on', { METRICS_PORT: '0' });
    const traces = await idle('traces on', {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
    });
    for (const [label, figures] of [
      ['metrics on', metrics],
      ['traces on', traces],
    ] as const) {
      rows.push({
        measurement: `idle RSS, ${label} vs both off`,
        value: fmt.mb(figures.rssMb * 1e6),
        baseline: fmt.mb(plain.rssMb * 1e6),
        ratio: fmt.ratio(figures.rssMb / plain.rssMb),
      });
      rows.push({
        measurement: `start-up time, ${label} vs both off`,
        value: fmt.ms(figures.startMs),
        baseline: fmt.ms(plain.startMs),
        ratio: fmt.ratio(figures.startMs / plain.startMs),
      });
    }
    summary = {
      ...summary,
      idle_rss_off_mb: plain.rssMb,
      idle_rss_metrics_mb: metrics.rssMb,
      idle_rss_traces_mb: traces.rssMb,
      start_off_ms: plain.startMs,
      start_metrics_ms: metrics.startMs,
      start_traces_ms: traces.startMs,
    };
  } finally {
    sink.close();
  }
  return { rows, summary };
}
