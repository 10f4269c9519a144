// Contact upserts per second (50/50 create/update) as a ratio of a bare single-row INSERT route on
// the same database and HTTP stack. Run: `node bench/contacts-upsert.ts` (DATABASE_URL for Postgres,
// embedded otherwise). Env: BENCH_REQUESTS (default 2000), BENCH_CONCURRENCY (default 16).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.ts';
import { OPERATOR } from '../src/flow/callers.ts';
import { issueApiKey } from '../src/flow/keys/keys.service.ts';
import { createWorkspace } from '../src/flow/workspaces/workspaces.service.ts';
import { loadConfig } from '../src/platform/config.ts';
import { openDatabase } from '../src/platform/db/client.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-bench-'));
const config = loadConfig({
  DATABASE_URL: process.env.DATABASE_URL,
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
app.post('/bench/bare', async (request) => {
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
const { token } = await issueApiKey(OPERATOR, workspace.id, { name: 'bench', scopes: ['contacts:write'] }, db);

const phone = (n: number) => `+55119${String(10_000_000 + n).slice(-8)}`;
async function measure(label: string, send: (i: number) => Promise<number>): Promise<number> {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const status = await send(next++);
        if (status >= 300) failed++;
      }
    }),
  );
  const perSecond = REQUESTS / ((performance.now() - started) / 1000);
  console.log(
    `${label.padEnd(28)} ${perSecond.toFixed(0).padStart(6)} req/s  (${REQUESTS} requests, ${CONCURRENCY} concurrent, ${failed} failed)`,
  );
  return perSecond;
}

// Warm-up (JIT, pools, plans), not measured.
for (let i = 0; i < 50; i++) await app.inject({ method: 'POST', url: '/bench/bare', payload: { name: 'w', phone: phone(i) } });

const bare = await measure(
  'bare INSERT route',
  async (i) => (await app.inject({ method: 'POST', url: '/bench/bare', payload: { name: `n${i}`, phone: phone(i) } })).statusCode,
);
// Even requests create a new contact; odd ones update one that exists (created before the clock
// starts). Updating the contact the previous request is still creating would measure unique-index
// races (half the updates losing one and retrying), not a create/update mix.
const upsert = (payload: Record<string, string>) =>
  app.inject({
    method: 'PUT',
    url: `/flow/v1/external/workspaces/${workspace.id}/contacts`,
    headers: { authorization: `Bearer ${token}` },
    payload,
  });
const existing = (i: number) => ({ external_id: `${run}-old-${i}`, phone: phone(i + 5_000_000) });
for (let i = 1; i < REQUESTS; i += 2) {
  const response = await upsert({ ...existing(i), name: 'Contato' });
  if (response.statusCode !== 201) throw new Error(`setup upsert failed: ${response.statusCode} ${response.body}`);
}
const upserts = await measure('contact upsert 50/50', async (i) => {
  const payload =
    i % 2 === 0
      ? { external_id: `${run}-new-${i}`, name: `Contato ${i}`, phone: phone(i + 7_000_000) }
      : { ...existing(i), name: `Contato ${i}` };
  return (await upsert(payload)).statusCode;
});
console.log(`ratio upsert / bare          ${(upserts / bare).toFixed(2)}  (target ≥ 0.40)`);

await app.close();
await db.execute('drop table if exists bench_bare_rows');
await database.close();
rmSync(dataDir, { recursive: true, force: true });
