import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { RETENTION_BATCH, runRetention } from '../../src/platform/retention.ts';
import { retentionTasks } from '../../src/retention.ts';
import { createTestApp, testEnv } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { rowsOf } from '../helpers/database.ts';
import { settled } from '../helpers/settled.ts';

// The retention run (docs/privacy.md, "How long"): each task at its boundary (an expired row and a
// kept one side by side), idempotent, at 0, in batches of short transactions, and the change feed's
// answer to a cursor from before what was pruned.

const t = await createTestApp({ env: CRM_TEST_ENV });
const { app } = t;
const db = t.db.database.db;
const logs: string[] = [];
const logger = createLogger(
  t.config,
  new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  }),
);

/** One retention run with these settings over the test database, as the job and the CLI run it. */
function retain(env: Record<string, string> = {}) {
  const config = loadConfig(testEnv({ ...CRM_TEST_ENV, ...env }));
  return runRetention(retentionTasks(config, t.db.database), logger);
}

describe('the retention run', () => {
  it('is the daily job the app registers', () => {
    expect(app.vetflow.jobs.definition('retention').cron).toBe('30 3 * * *');
  });

  it('reports every task, and logs each with its count and duration', async () => {
    const report = await retain();
    expect(Object.keys(report).sort()).toEqual([
      'audio_deleted',
      'contact_audit_logs_deleted',
      'contact_changes_deleted',
      'erasure_log_deleted',
      'idempotency_keys_deleted',
      'webhook_events_deleted',
    ]);
    const lines = logs.map((line) => JSON.parse(line)).filter((line) => line.msg === 'retention task done');
    expect(lines.map((line) => line.task).sort()).toEqual(Object.keys(report).sort());
    for (const line of lines) expect(line).toMatchObject({ removed: expect.any(Number), ms: expect.any(Number) });
  });
});

describe('idempotency keys', () => {
  const insertKey = (owner: string, key: string, hoursAgo: number) =>
    db.execute(sql`insert into idempotency_keys (owner_id, key, scope, fingerprint, status_code, response, created_at)
      values (${owner}, ${key}, 'POST /test', 'f', 200, '{"patient":"Rex"}', now() - make_interval(mins => ${hoursAgo * 60}))`);
  const keysOf = (owner: string) =>
    rowsOf<{ key: string }>(db, sql`select key from idempotency_keys where owner_id = ${owner} order by key`);

  it('are kept IDEMPOTENCY_RETENTION_HOURS (48): an expired key goes, the one beside it stays; a second run removes nothing', async () => {
    const owner = randomUUID();
    await insertKey(owner, 'expired', 48.5);
    await insertKey(owner, 'kept', 47.5);
    expect((await retain()).idempotency_keys_deleted).toBe(1);
    expect(await keysOf(owner)).toEqual([{ key: 'kept' }]);
    expect((await retain()).idempotency_keys_deleted).toBe(0);
    // 0: nothing older than the run is kept.
    expect((await retain({ IDEMPOTENCY_RETENTION_HOURS: '0' })).idempotency_keys_deleted).toBe(1);
    expect(await keysOf(owner)).toEqual([]);
  });
});

describe('the contact change feed', () => {
  it('keeps CONTACT_CHANGES_RETENTION_DAYS (30); a cursor from before the pruned changes → 410 with the cursor to resync from', async () => {
    const { workspaceId } = await makeWorkspace(t);
    const key = await makeKey(t, workspaceId);
    const call = (method: 'GET' | 'PUT', path: string, body?: object) =>
      app.inject({
        method,
        url: `/flow/v1/external/workspaces/${workspaceId}${path}`,
        headers: { authorization: `Bearer ${key.token}` },
        ...(body ? { payload: body } : {}),
      });
    const ids: string[] = [];
    for (const [name, phone] of [
      ['Ana', '11 97000-0001'],
      ['Bruno', '11 97000-0002'],
      ['Carla', '11 97000-0003'],
    ]) {
      ids.push((await call('PUT', '/contacts', { name, phone })).json().contact.id);
    }
    await settled(db);
    const first = (await call('GET', '/contacts/changes?limit=1')).json();
    expect(first.data).toHaveLength(1);
    // A follower that read everything has a cursor past all three changes.
    const caughtUp = (await call('GET', '/contacts/changes')).json();
    expect(caughtUp.data).toHaveLength(3);

    // Ana's and Bruno's creations are 31 days old; Carla's (29 days) is kept.
    await db.execute(sql`update contact_changes set changed_at = now() - interval '31 days' where contact_id in (${ids[0]}, ${ids[1]})`);
    await db.execute(sql`update contact_changes set changed_at = now() - interval '29 days' where contact_id = ${ids[2]}`);
    expect((await retain()).contact_changes_deleted).toBe(2);
    expect((await retain()).contact_changes_deleted).toBe(0);

    const expired = await call('GET', `/contacts/changes?cursor=${first.next_cursor}`);
    expect(expired.statusCode).toBe(410);
    const error = expired.json();
    expect(error).toMatchObject({ error: 'gone', code: 'CURSOR_EXPIRED', details: { oldest_cursor: expect.any(String) } });
    expect(error.message).toMatch(/resync/i);
    // From oldest_cursor: every change still kept.
    const resync = (await call('GET', `/contacts/changes?cursor=${error.details.oldest_cursor}`)).json();
    expect(resync.data.map((change: { contact_id: string }) => change.contact_id)).toEqual([ids[2]]);
    expect(resync.data[0]).toMatchObject({ change: 'created', contact: { name: 'Carla' } });
    // Without a cursor, the same; a follower already past what was pruned is not disturbed.
    expect((await call('GET', '/contacts/changes')).json().data.map((change: { contact_id: string }) => change.contact_id)).toEqual([
      ids[2],
    ]);
    const follower = await call('GET', `/contacts/changes?cursor=${caughtUp.next_cursor}`);
    expect(follower.statusCode).toBe(200);
    expect(follower.json().data).toEqual([]);

    // 0: nothing older than the run; the old oldest_cursor is now expired too.
    await settled(db);
    expect((await retain({ CONTACT_CHANGES_RETENTION_DAYS: '0' })).contact_changes_deleted).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `/contacts/changes?cursor=${error.details.oldest_cursor}`)).statusCode).toBe(410);
    expect((await call('GET', '/contacts/changes')).json().data).toEqual([]);
    // A change made after the run is kept and read.
    await call('PUT', '/contacts', { name: 'Davi', phone: '11 97000-0004' });
    await settled(db);
    const latest = (await call('GET', '/contacts/changes')).json();
    expect(latest.data.map((change: { contact: { name: string } }) => change.contact.name)).toEqual(['Davi']);
  });
});

describe('10,000 expired rows', () => {
  it('go in batches of short transactions, never one', async () => {
    // Every DELETE statement on the two tables logs its transaction and how many rows it removed.
    await db.execute(sql`create table retention_probe (tbl text, xact bigint, deleted int)`);
    await db.execute(
      sql.raw(`create function retention_probe() returns trigger language plpgsql as $$
      begin insert into retention_probe select TG_TABLE_NAME, txid_current(), count(*) from gone; return null; end $$`),
    );
    for (const table of ['contact_changes', 'idempotency_keys']) {
      await db.execute(
        sql.raw(`create trigger retention_probe after delete on ${table} referencing old table as gone
          for each statement execute function retention_probe()`),
      );
    }
    const workspaceId = randomUUID();
    const owner = randomUUID();
    // Positions below the feed's horizon (transaction ids are the server's): committed changes.
    await db.execute(sql`insert into contact_changes (workspace_id, contact_id, position, source, change, changed_fields, deleted, contact, changed_at)
      select ${workspaceId}, gen_random_uuid(), pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 10001 + g, 'erp', 'created',
        '{name}', false, '{}'::jsonb, now() - interval '60 days'
      from generate_series(1, 10000) g`);
    const [newest] = await rowsOf<{ position: string }>(
      db,
      sql`select max(position)::text as position from contact_changes where workspace_id = ${workspaceId}`,
    );
    await db.execute(sql`insert into idempotency_keys (owner_id, key, scope, fingerprint, status_code, response, created_at)
      select ${owner}, 'k' || g, 'POST /test', 'f', 200, '{}'::jsonb, now() - interval '60 days' from generate_series(1, 10000) g`);

    const report = await retain();
    expect(report.contact_changes_deleted).toBe(10_000);
    expect(report.idempotency_keys_deleted).toBe(10_000);
    for (const table of ['contact_changes', 'idempotency_keys']) {
      const statements = await rowsOf<{ xact: string; deleted: number }>(
        db,
        sql`select xact, deleted from retention_probe where tbl = ${table} and deleted > 0`,
      );
      expect(statements.reduce((sum, statement) => sum + statement.deleted, 0)).toBe(10_000);
      expect(Math.max(...statements.map((statement) => statement.deleted))).toBeLessThanOrEqual(RETENTION_BATCH);
      // Each batch committed on its own: as many transactions as statements, at least 10.
      expect(new Set(statements.map((statement) => statement.xact)).size).toBe(statements.length);
      expect(statements.length).toBeGreaterThanOrEqual(10);
    }
    const [left] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from contact_changes where workspace_id = ${workspaceId}`);
    expect(left!.n).toBe(0);
    const [floor] = await rowsOf<{ position: string }>(
      db,
      sql`select position::text from contact_change_floors where workspace_id = ${workspaceId}`,
    );
    expect(floor!.position).toBe(newest!.position);
  });
});
