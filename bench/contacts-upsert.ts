// Contact upserts per second (50/50 create/update) as a ratio of a bare single-row INSERT route on
// the same database and HTTP stack, over real HTTP: the app listens on 127.0.0.1 and
// bench/loadgen.ts, its own process, sends the requests (as the reads benchmark and the wrk figures measured here before
// wrk figures do). Run: `node bench/contacts-upsert.ts` (DATABASE_URL for Postgres: the run makes
// itself a fresh database on that server and drops it at the end, so runs start equal; embedded
// otherwise). Env: BENCH_SECONDS per phase (default 3, after 0.5 s of warm-up), BENCH_CONCURRENCY
// (connections, default 16), BENCH_ROUNDS (default 5, at most 7): the two phases alternate, round
// after round, and the median ratio is the result (one phase on a shared machine swings by ±20 %).
import { sql } from '../src/platform/db/drizzle.ts';
import { phase, startCrmBench } from './lib/crm-app.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Math.min(7, Number(process.env.BENCH_ROUNDS ?? 5));
// Contacts the updates address, created before the clock starts; each update gives one a new name.
const EXISTING = 2000;
const bench = await startCrmBench({
  scopes: ['contacts:write'],
  // The baseline: the same Fastify app and database, one INSERT, no auth or validation.
  prepare: (app) =>
    app.post('/bench/bare', { config: { access: 'public' } }, async (request) => {
      const body = request.body as { name: string; phone: string };
      await app.vetflow.database.db.execute(sql`insert into bench_bare_rows (name, phone) values (${body.name}, ${body.phone})`);
      return { ok: true };
    }),
});
const { app, db, run, token, url, contactsPath } = bench;
await db.execute(
  'create table if not exists bench_bare_rows (id uuid primary key default gen_random_uuid(), name text not null, phone text not null)',
);

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

const load = { url, connections: CONCURRENCY, warmupMs: 500, durationMs: SECONDS * 1000 };
const ratios: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const { rps: bare } = await phase(
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
  const { rps: upserts } = await phase(
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

await bench.close();
