// Contact upserts per second (50/50 create/update) as a ratio of a bare single-row INSERT route on
// the same database and HTTP stack, over real HTTP: the app listens on 127.0.0.1 and
// bench/loadgen.ts, its own process, sends the requests (as the reads benchmark and PERF-NOTES'
// wrk figures do). Run: `node bench/contacts-upsert.ts` (DATABASE_URL for Postgres: the run makes
// itself a fresh database on that server and drops it at the end, so runs start equal; embedded
// otherwise). Env: BENCH_SECONDS per phase (default 3, after 0.5 s of warm-up), BENCH_CONCURRENCY
// (connections, default 16), BENCH_ROUNDS (default 5, at most 7): the two phases alternate, round
// after round, and the median ratio is the result (one phase on a shared machine swings by ±20 %).
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.ts';
import { OPERATOR } from '../src/flow/callers.ts';
import { crmKeysService } from '../src/flow/keys/keys.service.ts';
import { createWorkspace } from '../src/flow/workspaces/workspaces.service.ts';
import { loadConfig } from '../src/platform/config.ts';
import { openDatabase } from '../src/platform/db/client.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { createBenchDatabase } from './lib/database.ts';
import { type LoadConfig, type LoadResult, runLoad } from './lib/load.ts';
import { cpuSeconds, processName } from './lib/proc.ts';
import { startProfile } from './lib/profile.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Math.min(7, Number(process.env.BENCH_ROUNDS ?? 5));
// Contacts the updates address, created before the clock starts; each update gives one a new name.
const EXISTING = 2000;
const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-bench-'));
const fresh = process.env.DATABASE_URL ? await createBenchDatabase(process.env.DATABASE_URL) : undefined;
const config = loadConfig({
  DATABASE_URL: fresh?.url,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  PASSWORD_SCRYPT_LOG_N: '14',
  CRM_RATE_LIMIT_PER_MINUTE: '100000000',
});
const database = await openDatabase(config);
await runMigrations(database);
const db = database.db;
await db.execute(
  'create table if not exists bench_bare_rows (id uuid primary key default gen_random_uuid(), name text not null, phone text not null)',
);
const app = await buildApp(config, { database });
// The baseline: the same Fastify app and database, one INSERT, no auth or validation.
app.post('/bench/bare', { config: { access: 'public' } }, async (request) => {
  const body = request.body as { name: string; phone: string };
  await db.execute(sql`insert into bench_bare_rows (name, phone) values (${body.name}, ${body.phone})`);
  return { ok: true };
});
await app.ready();

const run = Date.now().toString(36);
const { workspace } = await createWorkspace(
  OPERATOR,
  { name: `bench ${run}`, adminEmail: `bench-${run}@bench.example`, adminPassword: 'bench-password-1' },
  14,
  db,
);
const { token } = await crmKeysService(db).issueApiKey(OPERATOR, workspace.id, { name: 'bench', scopes: ['contacts:write'] });

const { port } = (await app.listen({ host: '127.0.0.1', port: 0 }).then(() => app.server.address())) as { port: number };
const url = `http://127.0.0.1:${port}`;
const contactsPath = `/flow/v1/external/workspaces/${workspace.id}/contacts`;

// Phones: +55 11 9 and 8 digits; the existing contacts' start with 8, each round's new ones with the round (1-7).
const existingContact = (i: number | string, digits: string) => `"external_id":"${run}-old-${i}","phone":"+551198${digits}"`;
for (let i = 0; i < EXISTING; i++) {
  const response = await app.inject({
    method: 'PUT',
    url: contactsPath,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: `{${existingContact(i, String(i).padStart(7, '0'))},"name":"Contato"}`,
  });
  if (response.statusCode !== 201) throw new Error(`setup upsert failed: ${response.statusCode} ${response.body}`);
}

// The bare route warmed up as much as the upsert path was by the setup above (JIT), so that the
// first rounds do not flatter the ratio.
for (let i = 0; i < EXISTING; i++) {
  await app.inject({ method: 'POST', url: '/bench/bare', payload: { name: 'warm-up', phone: `+551190${String(i).padStart(7, '0')}` } });
}

// Statistics as a running database would have them (autovacuum would ANALYZE mid-run otherwise).
await db.execute('analyze');

// CPU seconds used so far by this process (the server) and by every postgres process, from /proc
// (Linux; zeros elsewhere): per request, they show where a phase's cost went, steadier than req/s.
function cpuNow(): { server: number; postgres: number } {
  const result = { server: 0, postgres: 0 };
  if (!existsSync('/proc/self/stat')) return result;
  result.server = cpuSeconds(process.pid);
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (processName(Number(pid)) === 'postgres') result.postgres += cpuSeconds(Number(pid));
    } catch {
      // The process ended while we looked.
    }
  }
  return result;
}

async function phase(label: string, config: LoadConfig, profileAs?: string): Promise<number> {
  const before = cpuNow();
  const stopProfile = profileAs ? await startProfile() : undefined;
  const result = await runLoad(config);
  await stopProfile?.(profileAs!);
  const after = cpuNow();
  const perRequest = (key: 'server' | 'postgres') => (((after[key] - before[key]) / result.answered) * 1e6).toFixed(0).padStart(4);
  return report(label, result, `cpu/request: server ${perRequest('server')} µs, postgres ${perRequest('postgres')} µs`);
}

function report(label: string, result: LoadResult, cpu: string): number {
  const failed = Object.entries(result.statuses).filter(([status]) => Number(status) >= 300);
  if (failed.length > 0 || result.errors > 0) {
    throw new Error(`${label}: unexpected answers ${JSON.stringify(result.statuses)}, ${result.errors} socket errors`);
  }
  console.log(
    `${label.padEnd(28)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50_ms.toFixed(1)} ms  p99 ${result.p99_ms.toFixed(1)} ms  ${cpu}`,
  );
  return result.rps;
}

const load = { url, connections: CONCURRENCY, warmupMs: 500, durationMs: SECONDS * 1000 };
const ratios: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const bare = await phase(
    `round ${round}: bare INSERT route`,
    {
      ...load,
      paths: ['/bench/bare'],
      method: 'POST',
      bodies: [`{"name":"n{n}","phone":"+55119${round}{n7}"}`],
    },
    `bare-${round}`,
  );
  // Even requests create a new contact; odd ones give an existing one a new name (a real update).
  // Updating the contact another in-flight request is still creating would measure unique-index
  // races (half the updates losing one and retrying), not a create/update mix.
  const upserts = await phase(
    `round ${round}: upsert 50/50`,
    {
      ...load,
      paths: [contactsPath],
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
      bodies: [
        `{"external_id":"${run}-new-${round}-{n}","name":"Contato {n}","phone":"+55119${round}{n7}"}`,
        `{${existingContact('{r}', '{r7}')},"name":"Contato ${round}-{n}"}`,
      ],
      recycle: EXISTING,
    },
    `upsert-${round}`,
  );
  ratios.push(upserts / bare);
  console.log(`round ${round}: ratio                 ${(upserts / bare).toFixed(2)}`);
}
const sorted = [...ratios].sort((a, b) => a - b);
console.log(
  `ratio upsert / bare, median of ${ROUNDS}: ${sorted[Math.floor((ROUNDS - 1) / 2)]!.toFixed(2)}  (target ≥ 0.40; rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
);

await app.close();
await database.close();
await fresh?.drop();
rmSync(dataDir, { recursive: true, force: true });
