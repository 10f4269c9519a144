import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/flow/contacts/contact-changes.service.ts';
import { eq, sql } from '../../src/platform/db/drizzle.ts';
import { contactChanges } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeWorkspace } from '../helpers/crm.ts';

// GET /external/workspaces/{id}/contacts/changes: every version, in order, exactly once, also when
// transactions commit out of order.
const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_RATE_LIMIT_PER_MINUTE: '1000000', CRM_BATCH_ITEMS_PER_MINUTE: '1000000' } });
const { app } = t;
const db = t.db.database.db;
const onPostgres = t.db.url !== undefined;

let seq = 0;
const mobile = () => `11 9${String(5000_0000 + ++seq).padStart(8, '0')}`;

interface Change {
  contact_id: string;
  contact: { id: string; name: string; external_id: string | null } | null;
  deleted: boolean;
  source: 'erp' | 'crm_user';
  changed_fields: string[];
  changed_at: string;
}

async function workspaceWithKey() {
  const ws = await makeWorkspace(t);
  const key = await makeKey(t, ws.workspaceId);
  const base = `/flow/v1/external/workspaces/${ws.workspaceId}/contacts`;
  const auth = { authorization: `Bearer ${key.token}` };
  return {
    ...ws,
    put: async (body: object) => {
      const response = await app.inject({ method: 'PUT', url: base, headers: auth, payload: body });
      if (response.statusCode >= 300) throw new Error(`PUT ${response.statusCode} ${response.body}`);
      return response.json().contact as { id: string };
    },
    batch: async (items: object[]) => {
      const response = await app.inject({ method: 'POST', url: `${base}/batch`, headers: auth, payload: { contacts: items } });
      if (response.statusCode !== 200) throw new Error(`batch ${response.statusCode} ${response.body}`);
      return response.json().results as { status: number; contact_id: string }[];
    },
    remove: (id: string) => app.inject({ method: 'DELETE', url: `${base}/${id}`, headers: auth }),
    changes: (query: Record<string, string | number> = {}) =>
      app.inject({
        method: 'GET',
        url: `${base}/changes`,
        headers: auth,
        query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
      }),
    /** One page; throws unless 200. */
    page: async (cursor?: string, limit = 100) => {
      const response = await app.inject({
        method: 'GET',
        url: `${base}/changes`,
        headers: auth,
        query: { ...(cursor ? { cursor } : {}), limit: String(limit) },
      });
      if (response.statusCode !== 200) throw new Error(`changes ${response.statusCode} ${response.body}`);
      return response.json() as { data: Change[]; next_cursor: string; has_more: boolean };
    },
  };
}
type Fixture = Awaited<ReturnType<typeof workspaceWithKey>>;

/** The id the next transaction will get: every transaction begun so far has a lower one. */
async function nextTransaction(): Promise<bigint> {
  const result = (await db.execute(sql`select pg_snapshot_xmax(pg_current_snapshot())::text as next`)) as unknown as {
    rows: [{ next: string }];
  };
  return BigInt(result.rows[0].next);
}

/** Waits until every transaction begun before the call has ended (the feed's horizon has passed them). */
async function settled(): Promise<void> {
  const next = await nextTransaction();
  for (;;) {
    const result = (await db.execute(sql`select pg_snapshot_xmin(pg_current_snapshot())::text as horizon`)) as unknown as {
      rows: [{ horizon: string }];
    };
    if (BigInt(result.rows[0].horizon) >= next) return;
    await sleep(10);
  }
}

/** The position a cursor stands at. */
const positionOf = (cursor: string) => BigInt(Buffer.from(cursor, 'base64url').toString().split('.')[1]!);

/**
 * Reads on from `cursor` until the feed has passed every transaction begun before the call (the
 * horizon is the oldest transaction still running on the whole server, so on a busy server the
 * newest changes show up a moment later); the changes and the cursor to resume from.
 */
async function drain(ws: Fixture, cursor?: string, limit = 100) {
  const next = await nextTransaction();
  const seen: Change[] = [];
  for (;;) {
    const page = await ws.page(cursor, limit);
    seen.push(...page.data);
    cursor = page.next_cursor;
    if (page.data.length === 0) {
      if (positionOf(cursor) >= BigInt(next)) return { seen, cursor };
      await sleep(10);
    }
  }
}

describe('the change feed', () => {
  it('shows creates, updates, deletes and restores in order, each version with the fields that changed', async () => {
    const ws = await workspaceWithKey();
    const phone = mobile();
    const created = await ws.put({ external_id: 'f-1', name: 'Ana', phone });
    await ws.put({ external_id: 'f-1', name: 'Ana Souza', email: 'ana@example.com' });
    await ws.put({ external_id: 'f-1', name: 'Ana Souza' }); // no change: no version
    expect((await ws.remove(created.id)).statusCode).toBe(204);
    expect((await ws.remove(created.id)).statusCode).toBe(204); // already deleted: no version
    await ws.put({ external_id: 'f-1', address: 'Rua A, 1' });

    const { seen } = await drain(ws);
    expect(seen.map((c) => [c.changed_fields, c.deleted, c.contact?.name ?? null, c.source])).toEqual([
      [['external_id', 'name', 'phone'], false, 'Ana', 'erp'],
      [['name', 'email'], false, 'Ana Souza', 'erp'],
      [['deleted'], true, null, 'erp'],
      [['address', 'deleted'], false, 'Ana Souza', 'erp'],
    ]);
    expect(seen.every((c) => c.contact_id === created.id)).toBe(true);
    expect(seen[0]!.contact).toEqual({
      id: created.id,
      external_id: 'f-1',
      document: null,
      name: 'Ana',
      phone: `+55${phone.replace(/\D/g, '')}`,
      email: null,
      address: null,
      source: null,
      profile_pic_url: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    // The version as the read endpoint shows the contact now.
    const read = await app.inject({
      method: 'GET',
      url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts/${created.id}`,
      headers: { authorization: `Bearer ${(await makeKey(t, ws.workspaceId)).token}` },
    });
    expect(seen.at(-1)!.contact).toEqual(read.json());
    expect(seen[0]!.changed_at).toMatch(/Z$/);
  });

  it('shows a CRM user edit with source crm_user, and an edit that changes nothing not at all', async () => {
    const ws = await workspaceWithKey();
    const contact = await ws.put({ external_id: 'f-crm', name: 'Bia', phone: mobile() });
    const cookie = await loginCookie(app, ws.admin.email, ws.admin.password);
    const edit = (payload: object) =>
      app.inject({
        method: 'PATCH',
        url: `/flow/v1/api/workspaces/${ws.workspaceId}/contacts/${contact.id}`,
        headers: { cookie },
        payload,
      });
    expect((await edit({ name: 'Bia (CRM)' })).statusCode).toBe(200);
    expect((await edit({ name: 'Bia (CRM)' })).statusCode).toBe(200);
    await ws.put({ external_id: 'f-crm', email: 'bia@example.com' });
    const { seen } = await drain(ws);
    expect(seen.map((c) => [c.source, c.changed_fields, c.contact?.name])).toEqual([
      ['erp', ['external_id', 'name', 'phone'], 'Bia'],
      ['crm_user', ['name'], 'Bia (CRM)'],
      ['erp', ['email'], 'Bia (CRM)'],
    ]);
  });

  it('pages without gaps or repeats, says on each page whether more is ready, and an empty page still answers a cursor', async () => {
    const ws = await workspaceWithKey();
    const empty = await ws.page();
    expect(empty).toEqual({ data: [], next_cursor: expect.any(String), has_more: false });
    const results = await ws.batch(Array.from({ length: 5 }, (_, i) => ({ external_id: `p-${i}`, name: `P${i}`, phone: mobile() })));
    await settled();
    /** Follows the feed from `cursor` to its end as the description says: until has_more is false. */
    const follow = async (cursor: string, limit: number) => {
      const pages: [string[], boolean][] = [];
      for (;;) {
        const page = await ws.page(cursor, limit);
        pages.push([page.data.map((c) => c.contact!.external_id!), page.has_more]);
        cursor = page.next_cursor;
        if (!page.has_more) return { pages, cursor };
      }
    };
    const byTwo = await follow(empty.next_cursor, 2);
    expect(byTwo.pages).toEqual([
      [['p-0', 'p-1'], true],
      [['p-2', 'p-3'], true],
      [['p-4'], false],
    ]);
    // A full page that happens to be the last says so: no empty page needed to learn the end.
    expect((await follow(empty.next_cursor, 5)).pages).toEqual([[['p-0', 'p-1', 'p-2', 'p-3', 'p-4'], false]]);
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    // Nothing new: the same cursor again, or one further on, never one behind.
    const again = await ws.page(byTwo.cursor);
    expect(again).toMatchObject({ data: [], has_more: false });
    expect(positionOf(again.next_cursor)).toBeGreaterThanOrEqual(positionOf(byTwo.cursor));
    await ws.put({ external_id: 'p-0', name: 'P0 again' });
    expect((await drain(ws, again.next_cursor)).seen.map((c) => c.contact!.name)).toEqual(['P0 again']);
  });

  it.each([
    ['garbage', 'not-a-cursor!'],
    ['base64 of something else', Buffer.from('v1.x.1').toString('base64url')],
    ['a cursor of another version', Buffer.from('v2.1.1').toString('base64url')],
    ['too long', 'A'.repeat(300)],
  ])('400 for a malformed cursor (%s)', async (_label, cursor) => {
    const ws = await workspaceWithKey();
    const response = await ws.changes({ cursor });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ details: { field: 'cursor' } });
  });

  it('400 for a limit out of 1-1000; 403 without contacts:read', async () => {
    const ws = await workspaceWithKey();
    expect((await ws.changes({ limit: 0 })).statusCode).toBe(400);
    expect((await ws.changes({ limit: 1001 })).statusCode).toBe(400);
    expect((await ws.changes({ limit: 1000 })).statusCode).toBe(200);
    const writeOnly = await makeKey(t, ws.workspaceId, ['contacts:write']);
    const refused = await app.inject({
      method: 'GET',
      url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts/changes`,
      headers: { authorization: `Bearer ${writeOnly.token}` },
    });
    expect(refused.statusCode).toBe(403);
  });

  it("never shows another workspace's changes", async () => {
    const mine = await workspaceWithKey();
    const theirs = await workspaceWithKey();
    await theirs.put({ external_id: 'theirs', name: 'Outra', phone: mobile() });
    await mine.put({ external_id: 'mine', name: 'Minha', phone: mobile() });
    expect((await drain(mine)).seen.map((c) => c.contact!.external_id)).toEqual(['mine']);
    // A cursor is only a place: another workspace's cursor reads this workspace's feed.
    expect((await mine.page(encodeCursor({ position: 0, id: 0 }))).data).toHaveLength(1);
  });
});

describe.runIf(onPostgres)('the change feed under concurrency', () => {
  /** Runs `body` in one transaction on a connection of its own; `rename` gives a contact a new name in it. */
  async function inOwnTransaction(body: (rename: (id: string, name: string) => Promise<unknown>) => Promise<void>) {
    const client = new pg.Client({ connectionString: t.db.url });
    await client.connect();
    try {
      await client.query('begin');
      await body((id, name) => client.query('update contacts set name = $1, updated_at = now() where id = $2', [name, id]));
      await client.query('commit');
    } finally {
      await client.end();
    }
  }

  it('delivers a change that commits after a later one was read (a transaction held open across a read)', async () => {
    const ws = await workspaceWithKey();
    const slow = await ws.put({ external_id: 'slow', name: 'Lenta', phone: mobile() });
    const { cursor } = await drain(ws);

    await inOwnTransaction(async (rename) => {
      // This transaction takes its id (and its change's position) first…
      await rename(slow.id, 'Lenta v2');
      // …and this one commits first, with a later position.
      await ws.put({ external_id: 'fast', name: 'Rápida', phone: mobile() });
      const during = await ws.page(cursor);
      // A serial cursor would have handed out "fast" and moved past the open change; the feed waits.
      expect(during.data).toEqual([]);
    });
    const after = await drain(ws, cursor);
    // Both are there now, in the order their transactions began: the late commit was not lost.
    expect(after.seen.map((c) => c.contact!.name)).toEqual(['Lenta v2', 'Rápida']);
    // What a plain serial cursor would have lost: the late change's id is the lower one.
    const rows = await db.select().from(contactChanges).where(eq(contactChanges.workspaceId, ws.workspaceId)).orderBy(contactChanges.id);
    expect(rows.slice(-2).map((row) => (row.contact as { name: string }).name)).toEqual(['Lenta v2', 'Rápida']);
  });

  it("shows one contact's versions in the order they were written, also when an older transaction writes last", async () => {
    const ws = await workspaceWithKey();
    const other = await ws.put({ external_id: 'x-other', name: 'Outro', phone: mobile() });
    const contact = await ws.put({ external_id: 'x-main', name: 'v1', phone: mobile() });
    const { cursor } = await drain(ws);
    await inOwnTransaction(async (rename) => {
      // The older transaction gets its id by writing another contact…
      await rename(other.id, 'Outro v2');
      // …a younger one writes the contact and commits…
      await ws.put({ external_id: 'x-main', name: 'v2' });
      // …and then the older one writes the same contact on top of that.
      await rename(contact.id, 'v3');
    });
    const { seen } = await drain(ws, cursor);
    expect(seen.filter((c) => c.contact_id === contact.id).map((c) => c.contact!.name)).toEqual(['v2', 'v3']);
    expect(seen).toHaveLength(3);
  });

  it('many writers, one follower: every version of every contact seen exactly once, in order', async () => {
    const ws = await workspaceWithKey();
    const WRITERS = 6;
    const CONTACTS = 5;
    const ROUNDS = 6;
    const name = (w: number, k: number, round: number) => `c${w}-${k} v${round}`;
    const ids = new Map<string, string>();
    const created = await ws.batch(
      Array.from({ length: WRITERS * CONTACTS }, (_, i) => ({
        external_id: `w${Math.floor(i / CONTACTS)}-${i % CONTACTS}`,
        name: name(Math.floor(i / CONTACTS), i % CONTACTS, 0),
        phone: mobile(),
      })),
    );
    for (const [i, result] of created.entries()) ids.set(`w${Math.floor(i / CONTACTS)}-${i % CONTACTS}`, result.contact_id);

    let writing = true;
    const seen: Change[] = [];
    const follower = (async () => {
      let cursor: string | undefined;
      let finishedAt: number | undefined;
      for (;;) {
        const done = !writing;
        const page = await ws.page(cursor, 13);
        seen.push(...page.data);
        cursor = page.next_cursor;
        // Stop after a complete, empty read that began once every writer had finished (or, when
        // versions went missing, after 20 s of waiting for them: the assertions below say which).
        if (done && page.data.length === 0) {
          finishedAt ??= Date.now();
          if (seen.length >= WRITERS * CONTACTS * ROUNDS || Date.now() - finishedAt > 20_000) return;
          await sleep(20);
        }
      }
    })();

    const writer = async (w: number) => {
      const mode = w % 3; // 0: single PUTs, 1: one batch per round, 2: one slow SQL transaction per round
      for (let round = 1; round < ROUNDS; round++) {
        const items = Array.from({ length: CONTACTS }, (_, k) => ({ external_id: `w${w}-${k}`, name: name(w, k, round) }));
        if (mode === 0) for (const item of items) await ws.put(item);
        else if (mode === 1) await ws.batch(items);
        else {
          await inOwnTransaction(async (rename) => {
            for (const [k, item] of items.entries()) {
              await rename(ids.get(`w${w}-${k}`)!, item.name);
              await sleep(Math.random() * 6);
            }
          });
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    writing = false;
    await follower;

    const byContact = new Map<string, string[]>();
    for (const change of seen) byContact.set(change.contact_id, [...(byContact.get(change.contact_id) ?? []), change.contact!.name]);
    for (let w = 0; w < WRITERS; w++) {
      for (let k = 0; k < CONTACTS; k++) {
        expect(byContact.get(ids.get(`w${w}-${k}`)!), `w${w}-${k}`).toEqual(
          Array.from({ length: ROUNDS }, (_, round) => name(w, k, round)),
        );
      }
    }
    expect(seen).toHaveLength(WRITERS * CONTACTS * ROUNDS);
  });
});
