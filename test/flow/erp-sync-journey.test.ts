import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { toProjection } from '../../src/flow/contacts/contact.schemas.ts';
import { eq, sql } from '../../src/platform/db/drizzle.ts';
import { contacts } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeUser, makeWorkspace } from '../helpers/crm.ts';

// The "done when", as an ERP integrator would try it: load the clinic's tutors in batches,
// let CRM users edit some, delete and restore a few, and follow the change feed from the start
// while all that happens; the follower must end with exactly the CRM's state. 2,000 contacts here
// (ERP_SYNC_CONTACTS=10000 runs the figure; docs/flow-sync.md has its timing).
const TOTAL = Number(process.env.ERP_SYNC_CONTACTS ?? 2000);
const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_RATE_LIMIT_PER_MINUTE: '1000000', CRM_BATCH_ITEMS_PER_MINUTE: '1000000' } });
const { app } = t;
const db = t.db.database.db;

describe('ERP sync journey', () => {
  it(`loads ${TOTAL} contacts in batches, follows CRM edits, deletes and restores, and ends with the CRM's state`, {
    timeout: 300_000,
  }, async () => {
    const ws = await makeWorkspace(t);
    const key = await makeKey(t, ws.workspaceId);
    const agent = await makeUser(t, ws.workspaceId, 'agent');
    const cookie = await loginCookie(app, agent.email, agent.password);
    const base = `/flow/v1/external/workspaces/${ws.workspaceId}/contacts`;
    const auth = { authorization: `Bearer ${key.token}` };
    const phone = (i: number) => `+55119${String(40_000_000 + i).padStart(8, '0')}`;
    const batch = async (items: object[]) => {
      const response = await app.inject({ method: 'POST', url: `${base}/batch`, headers: auth, payload: { contacts: items } });
      expect(response.statusCode, response.body).toBe(200);
      return response.json().results as { status: number; contact_id: string; warnings?: string[] }[];
    };

    // The follower: from the start, applying each version to its copy, until told to stop and caught up.
    const replica = new Map<string, unknown>();
    let entries = 0;
    let stopAfter: bigint | undefined;
    const follower = (async () => {
      let cursor: string | undefined;
      for (;;) {
        const response = await app.inject({
          method: 'GET',
          url: `${base}/changes`,
          headers: auth,
          query: { limit: '1000', ...(cursor ? { cursor } : {}) },
        });
        expect(response.statusCode, response.body).toBe(200);
        const page = response.json() as { data: { contact_id: string; contact: unknown; deleted: boolean }[]; next_cursor: string };
        for (const change of page.data) replica.set(change.contact_id, change.deleted ? null : change.contact);
        entries += page.data.length;
        cursor = page.next_cursor;
        const position = BigInt(Buffer.from(cursor, 'base64url').toString().split('.')[1]!);
        if (page.data.length === 0 && stopAfter !== undefined && position >= stopAfter) return;
        if (page.data.length === 0) await sleep(25);
      }
    })();

    // 1. The initial load, four batches in flight at a time.
    const started = performance.now();
    const ids: string[] = [];
    const batches = Array.from({ length: Math.ceil(TOTAL / 100) }, (_, b) =>
      Array.from({ length: Math.min(100, TOTAL - b * 100) }, (_, i) => {
        const n = b * 100 + i;
        return { external_id: `erp-${n}`, document: `doc-${n}`, name: `Tutor ${n}`, phone: phone(n), email: `t${n}@example.com` };
      }),
    );
    for (let b = 0; b < batches.length; b += 4) {
      const answers = await Promise.all(batches.slice(b, b + 4).map(batch));
      for (const results of answers) for (const result of results) ids.push(result.contact_id);
    }
    const loadSeconds = (performance.now() - started) / 1000;
    expect(ids).toHaveLength(TOTAL);
    expect(new Set(ids).size).toBe(TOTAL);

    // 2. CRM users edit some contacts (name and phone, marked "edited in flow").
    const edited = Array.from({ length: 50 }, (_, i) => i * Math.floor(TOTAL / 50));
    for (const n of edited) {
      const response = await app.inject({
        method: 'PATCH',
        url: `/flow/v1/api/workspaces/${ws.workspaceId}/contacts/${ids[n]}`,
        headers: { cookie },
        payload: { name: `Tutor ${n} (CRM)`, address: `Rua ${n}` },
      });
      expect(response.statusCode, response.body).toBe(200);
    }
    // 3. The ERP sends its next round for those: the CRM's names stay (policy `flow`), the e-mails change.
    const second = await batch(edited.map((n) => ({ external_id: `erp-${n}`, name: `Tutor ${n} ERP`, email: `new${n}@example.com` })));
    expect(second.every((r) => r.status === 200 && r.warnings?.includes('name_not_applied_user_edited_in_flow'))).toBe(true);
    // 4. Deletes, then half of them come back.
    const deleted = Array.from({ length: 30 }, (_, i) => 1 + i * Math.floor(TOTAL / 30));
    for (const n of deleted) expect((await app.inject({ method: 'DELETE', url: `${base}/${ids[n]}`, headers: auth })).statusCode).toBe(204);
    const restored = await batch(deleted.slice(0, 15).map((n) => ({ external_id: `erp-${n}`, name: `Tutor ${n} again` })));
    expect(restored.every((r) => r.status === 201)).toBe(true);

    // Stop once the feed has passed every write above.
    const result = (await db.execute(sql`select pg_snapshot_xmax(pg_current_snapshot())::text as next`)) as unknown as {
      rows: [{ next: string }];
    };
    stopAfter = BigInt(result.rows[0].next);
    await follower;

    // The CRM's state: every contact of the workspace as the external API shows it, null when deleted.
    const rows = await db.select().from(contacts).where(eq(contacts.workspaceId, ws.workspaceId));
    const crm = new Map(rows.map((row) => [row.id, row.deletedAt ? null : toProjection(row)]));
    expect(replica.size).toBe(TOTAL);
    expect(replica).toEqual(crm);
    expect([...replica.values()].filter((c) => c === null)).toHaveLength(15);
    expect(crm.get(ids[edited[1]!]!)).toMatchObject({ name: `Tutor ${edited[1]} (CRM)`, email: `new${edited[1]}@example.com` });
    // Every version once: the load, the CRM edits, the ERP's round, the deletes and the restores.
    expect(entries).toBe(TOTAL + 50 + 50 + 30 + 15);
    console.log(
      `ERP sync journey: ${TOTAL} contacts loaded in ${loadSeconds.toFixed(1)} s (${(TOTAL / loadSeconds).toFixed(0)} contacts/s)`,
    );
  });
});
