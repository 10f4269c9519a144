// ERP sync: contacts per second loaded in batches of 100 (POST …/contacts/batch) against single
// PUTs, over real HTTP in the same run (bench/loadgen.ts in its own process, as
// bench/contacts-upsert.ts does), then the change feed read from the start for 100,000 changes
// (contacts/s and latency per page of 1,000). Run: `node bench/contacts-sync.ts` or
// `npm run bench -- contacts-sync` (DATABASE_URL for Postgres: a fresh database on that server,
// dropped at the end). Env: BENCH_SECONDS per phase (default 3, after 0.5 s of warm-up),
// BENCH_CONCURRENCY (connections of the single PUTs, default 16), BENCH_BATCH_CONCURRENCY (of the
// batches, default 4: an ERP's loader with a few batches in flight), BENCH_ROUNDS (default 3;
// the phases alternate and the median ratio is the result), BENCH_FEED_CHANGES (default 100,000).
import { sql } from '../src/platform/db/drizzle.ts';
import { phase, startCrmBench } from './lib/crm-app.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BATCH_CONCURRENCY = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 4);
const ROUNDS = Math.min(7, Number(process.env.BENCH_ROUNDS ?? 3));
const FEED_CHANGES = Number(process.env.BENCH_FEED_CHANGES ?? 100_000);
const PAGE = 1000;

const bench = await startCrmBench({ scopes: ['contacts:write', 'contacts:read'] });
const { db, run, token, url, contactsPath } = bench;
const auth = { authorization: `Bearer ${token}` };

// The run; the database is dropped also when it fails.
async function main() {
  // Warm-up (JIT, plans, pool) of both paths before the clock starts.
  for (let i = 0; i < 300; i++) {
    await bench.app.inject({
      method: 'PUT',
      url: contactsPath,
      headers: auth,
      payload: { external_id: `${run}-warm-${i}`, name: 'Aquecimento', phone: `+55319${String(i).padStart(8, '0')}` },
    });
  }
  for (let b = 0; b < 10; b++) {
    const contacts = Array.from({ length: 100 }, (_, k) => ({
      external_id: `${run}-warmb-${b}-${k}`,
      name: 'Aquecimento',
      phone: `+55419${String(b * 100 + k).padStart(8, '0')}`,
    }));
    await bench.app.inject({ method: 'POST', url: `${contactsPath}/batch`, headers: auth, payload: { contacts } });
  }
  await db.execute('analyze');

  const count = async (pattern: string) => {
    const result = (await db.execute(sql`select count(*)::int as n from contacts where external_id like ${pattern}`)) as unknown as {
      rows: [{ n: number }];
    };
    return result.rows[0].n;
  };

  // Phones: single PUTs +55 11 9<round><7 digits>; batches +55 21 9<round><item, 2 digits><5 digits>.
  const batchBody = (round: number) =>
    `{"contacts":[${Array.from(
      { length: 100 },
      (_, k) =>
        `{"external_id":"${run}-b${round}-{n}-${k}","name":"Tutor {n}-${k}","phone":"+55219${round}${String(k).padStart(2, '0')}{n5}"}`,
    ).join(',')}]}`;

  const load = { url, warmupMs: 500, durationMs: SECONDS * 1000 };
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const single = await phase(
      `round ${round}: single PUT`,
      {
        ...load,
        connections: CONCURRENCY,
        paths: [contactsPath],
        method: 'PUT',
        headers: auth,
        bodies: [`{"external_id":"${run}-s${round}-{n}","name":"Tutor {n}","phone":"+55119${round}{n7}"}`],
      },
      `contacts-sync-single-${round}`,
    );
    const batches = await phase(
      `round ${round}: batch of 100`,
      {
        ...load,
        connections: BATCH_CONCURRENCY,
        paths: [`${contactsPath}/batch`],
        method: 'POST',
        bodies: [batchBody(round)],
        headers: auth,
      },
      `contacts-sync-batch-${round}`,
    );
    // Every answered batch wrote its 100 contacts (a 200 alone would not say so: items answer on their own).
    const written = await count(`${run}-b${round}-%`);
    if (written !== batches.answered * 100) throw new Error(`round ${round}: ${written} contacts for ${batches.answered} batches`);
    const ratio = (batches.rps * 100) / single.rps;
    ratios.push(ratio);
    console.log(
      `round ${round}: contacts/s single ${single.rps.toFixed(0)}, batches ${(batches.rps * 100).toFixed(0)}  ratio ${ratio.toFixed(2)}`,
    );
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(
    `ratio batch / single contacts per second, median of ${ROUNDS}: ${sorted[Math.floor((ROUNDS - 1) / 2)]!.toFixed(2)}  ` +
      `(target ≥ 5; rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
  );

  // The feed: top the workspace up to FEED_CHANGES changes (plain inserts, which the trigger records
  // like any other write), then follow it from the start, one page of 1,000 after the other.
  const workspaceId = contactsPath.split('/')[5]!;
  const existing = (await db.execute(
    sql`select count(*)::int as n from contact_changes where workspace_id = ${workspaceId}`,
  )) as unknown as {
    rows: [{ n: number }];
  };
  const missing = FEED_CHANGES - existing.rows[0].n;
  // In chunks: one statement stays under the statement timeout on a busy machine.
  for (let from = 1; from <= missing; from += 5000) {
    const to = Math.min(missing, from + 4999);
    await db.execute(sql`insert into contacts (workspace_id, external_id, name, phone)
      select ${workspaceId}, ${`${run}-feed-`} || i, 'Tutor ' || i, '+55519' || lpad(i::text, 8, '0') from generate_series(${from}::int, ${to}::int) i`);
  }
  await db.execute('analyze');
  for (let pass = 1; pass <= 2; pass++) {
    let cursor: string | undefined;
    let read = 0;
    const pageMs: number[] = [];
    const started = performance.now();
    while (read < FEED_CHANGES) {
      const before = performance.now();
      const response = await fetch(`${url}${contactsPath}/changes?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`, { headers: auth });
      if (response.status !== 200) throw new Error(`feed: ${response.status} ${await response.text()}`);
      const page = (await response.json()) as { data: unknown[]; next_cursor: string };
      pageMs.push(performance.now() - before);
      if (page.data.length === 0) throw new Error(`feed: empty page after ${read} changes`);
      read += page.data.length;
      cursor = page.next_cursor;
    }
    const seconds = (performance.now() - started) / 1000;
    pageMs.sort((a, b) => a - b);
    const at = (p: number) => pageMs[Math.min(pageMs.length - 1, Math.ceil((p / 100) * pageMs.length) - 1)]!.toFixed(1);
    console.log(
      `feed pass ${pass}: ${read} changes in ${seconds.toFixed(2)} s = ${(read / seconds).toFixed(0)} contacts/s; ` +
        `${pageMs.length} pages of ${PAGE}: p50 ${at(50)} ms, p99 ${at(99)} ms, max ${pageMs.at(-1)!.toFixed(1)} ms`,
    );
  }
}

try {
  await main();
} finally {
  await bench.close();
}
