// The CRM benchmarks' shared set-up: a fresh database (on DATABASE_URL's server, else embedded),
// the real app listening on 127.0.0.1 with a workspace and an API key, and the CPU-time meter.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.ts';
import { OPERATOR } from '../../src/flow/callers.ts';
import { crmKeysService } from '../../src/flow/keys/keys.service.ts';
import type { CrmScope } from '../../src/flow/keys/scopes.ts';
import { workspacesService } from '../../src/flow/operator/workspaces.service.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { openDatabase } from '../../src/platform/db/client.ts';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { createBenchDatabase } from './database.ts';
import { type LoadConfig, type LoadResult, runLoad } from './load.ts';
import { cpuSeconds, processName } from './proc.ts';
import { startProfile } from './profile.ts';

/**
 * Starts the app for a CRM benchmark. `prepare` runs on the built app before it is ready (extra
 * routes); the rate limits are raised so that the limiter runs but never refuses.
 */
export async function startCrmBench(options: { scopes: CrmScope[]; prepare?: (app: Awaited<ReturnType<typeof buildApp>>) => void }) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-bench-'));
  const fresh = process.env.DATABASE_URL ? await createBenchDatabase(process.env.DATABASE_URL) : undefined;
  const config = loadConfig({
    DATABASE_URL: fresh?.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '14',
    CRM_RATE_LIMIT_PER_MINUTE: '100000000',
    CRM_BATCH_ITEMS_PER_MINUTE: '1000000000',
  });
  benchDatabaseName = fresh ? new URL(fresh.url).pathname.slice(1) : undefined;
  const database = await openDatabase(config);
  await runMigrations(database);
  const app = await buildApp(config, { database });
  options.prepare?.(app);
  await app.ready();
  const run = Date.now().toString(36);
  const { workspace } = await workspacesService({ db: database.db, logN: 14 }).createWorkspace(OPERATOR, {
    name: `bench ${run}`,
    adminEmail: `bench-${run}@bench.example`,
    adminPassword: 'bench-password-1',
  });
  const { token } = await crmKeysService({ db: database.db }).issueApiKey(OPERATOR, workspace.id, {
    name: 'bench',
    scopes: options.scopes,
  });
  const { port } = (await app.listen({ host: '127.0.0.1', port: 0 }).then(() => app.server.address())) as { port: number };
  return {
    app,
    db: database.db,
    run,
    token,
    url: `http://127.0.0.1:${port}`,
    contactsPath: `/flow/v1/external/workspaces/${workspace.id}/contacts`,
    async close() {
      await app.close();
      await database.close();
      await fresh?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The benchmark's own database on a shared server (undefined when embedded). */
let benchDatabaseName: string | undefined;

/**
 * CPU seconds used so far by this process (the server), by every postgres process, and by the
 * backends connected to the benchmark's own database (named in their command line, `postgres:
 * 15/main: user <database> …`), from /proc (Linux; zeros elsewhere): per request, they show where
 * a phase's cost went, steadier than req/s. `postgres` includes the server's other databases (on a
 * shared box, other people's tests) and its background writers; `backends` is this run's alone.
 */
function cpuNow(): { server: number; postgres: number; backends: number } {
  const result = { server: 0, postgres: 0, backends: 0 };
  if (!existsSync('/proc/self/stat')) return result;
  result.server = cpuSeconds(process.pid);
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (processName(Number(pid)) !== 'postgres') continue;
      const cpu = cpuSeconds(Number(pid));
      result.postgres += cpu;
      if (benchDatabaseName && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${benchDatabaseName} `)) result.backends += cpu;
    } catch {
      // The process ended while we looked.
    }
  }
  return result;
}

/**
 * One load phase over HTTP (bench/loadgen.ts in its own process): prints req/s, latency and CPU
 * per request (server, postgres) and answers the load's result. Any answer ≥ 300 fails the run.
 * `profileAs` names the phase's CPU profile (BENCH_PROFILE_DIR).
 */
export async function phase(label: string, config: LoadConfig, profileAs?: string): Promise<LoadResult> {
  const before = cpuNow();
  const stopProfile = profileAs ? await startProfile() : undefined;
  const result = await runLoad(config);
  await stopProfile?.(profileAs!);
  const after = cpuNow();
  const perRequest = (key: 'server' | 'postgres' | 'backends') =>
    (((after[key] - before[key]) / result.answered) * 1e6).toFixed(0).padStart(4);
  const failed = Object.entries(result.statuses).filter(([status]) => Number(status) >= 300);
  if (failed.length > 0 || result.errors > 0) {
    throw new Error(`${label}: unexpected answers ${JSON.stringify(result.statuses)}, ${result.errors} socket errors`);
  }
  console.log(
    `${label.padEnd(28)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50_ms.toFixed(1)} ms  p99 ${result.p99_ms.toFixed(1)} ms  ` +
      `cpu/request: server ${perRequest('server')} µs, postgres ${perRequest('postgres')} µs (this database's backends ${perRequest('backends')} µs), load generator ${((result.cpu_s / result.answered) * 1e6).toFixed(0)} µs`,
  );
  return result;
}
