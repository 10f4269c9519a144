import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eq, inArray } from '../../src/platform/db/drizzle.ts';
import { contactChanges, contactExternalApiAuditLogs, contacts } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { waitForLockWaiters } from '../helpers/database.ts';

// POST /external/workspaces/{id}/contacts/batch: each item answered as the single PUT would have.
const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_RATE_LIMIT_PER_MINUTE: '100000', CRM_BATCH_ITEMS_PER_MINUTE: '250' } });
const { app } = t;
const db = t.db.database.db;

let seq = 0;
/** A fresh valid Brazilian mobile per call, so items never share phones by accident. */
const mobile = () => `11 9${String(6000_0000 + ++seq).padStart(8, '0')}`;

async function workspaceWithKey() {
  const ws = await makeWorkspace(t);
  const key = await makeKey(t, ws.workspaceId);
  const base = `/flow/v1/external/workspaces/${ws.workspaceId}/contacts`;
  const send = (method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url: `${base}${url}`,
      headers: {
        authorization: `Bearer ${key.token}`,
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(payload !== undefined ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
    });
  return { ...ws, key, send };
}
type Fixture = Awaited<ReturnType<typeof workspaceWithKey>>;

const auditRowsOf = (requestId: string) =>
  db.select().from(contactExternalApiAuditLogs).where(eq(contactExternalApiAuditLogs.requestId, requestId));

/**
 * The mixed batch's world: an active contact (A), a deleted one (B), a deleted one (F) whose
 * external_id an active one (G) took since, and one whose name a CRM user edited (E, workspace
 * policy `flow`). Built the same way in two
 * workspaces: one gets the batch, the other the same items as single PUTs.
 */
async function mixedWorld(ws: Fixture, withConflict: boolean) {
  const phones = { a: mobile(), b: mobile(), f: mobile(), g: mobile(), e: mobile(), n: mobile(), x: mobile(), l: mobile() };
  const created = async (body: object) => (await ws.send('PUT', '', body)).json().contact.id as string;
  const ids = {
    a: await created({ external_id: 'a', document: 'doc-a', name: 'Ana', phone: phones.a }),
    b: await created({ external_id: 'b', name: 'Bia', phone: phones.b }),
    f: await created({ external_id: 'dupe', document: 'doc-f', name: 'Fê', phone: phones.f }),
    e: await created({ external_id: 'e', name: 'Edu', phone: phones.e }),
  };
  expect((await ws.send('DELETE', `/${ids.b}`)).statusCode).toBe(204);
  expect((await ws.send('DELETE', `/${ids.f}`)).statusCode).toBe(204);
  const g = await created({ external_id: 'g', name: 'Gil', phone: phones.g });
  const cookie = await loginCookie(app, ws.admin.email, ws.admin.password);
  const edit = await app.inject({
    method: 'PATCH',
    url: `/flow/v1/api/workspaces/${ws.workspaceId}/contacts/${ids.e}`,
    headers: { cookie },
    payload: { name: 'Eduardo (CRM)' },
  });
  expect(edit.statusCode, edit.body).toBe(200);
  // A CRM user gives G the external_id F had before it was deleted.
  const taken = await app.inject({
    method: 'PATCH',
    url: `/flow/v1/api/workspaces/${ws.workspaceId}/contacts/${g}`,
    headers: { cookie },
    payload: { external_id: 'dupe' },
  });
  expect(taken.statusCode, taken.body).toBe(200);
  const items: unknown[] = [
    { external_id: 'new-1', name: 'Nova', phone: phones.n }, // 0 create
    { external_id: 'a', name: 'Ana Lima' }, // 1 update
    { external_id: 'b', name: 'Bia de volta' }, // 2 restore
    { external_id: 'x', name: 'Xis', phone: '123' }, // 3 invalid phone
    // 4 restores F, whose external_id G holds now: 409 (the batch then runs item by item)
    withConflict ? { document: 'doc-f', name: 'Fê de volta' } : { external_id: 'a', document: 'doc-a2' },
    { external_id: 'l', name: 'Legado', phone: phones.l, legacy_id: 7 }, // 5 legacy field
    { external_id: 'new-1', email: 'nova@example.com' }, // 6 the contact item 0 created
    { external_id: 'e', name: 'Edu ERP', address: 'Rua E, 5' }, // 7 name kept under `flow`: warning
    42, // 8 not an object
    { external_id: 'nm', phone: phones.x }, // 9 no match and no name
    { name: 'Sem id' }, // 10 no identifier
  ];
  return { ids: { ...ids, g }, items };
}

/** A result with contact ids replaced by their world names, and request ids dropped: comparable across workspaces. */
function comparable(result: Record<string, unknown>, ids: Record<string, string>, createdId?: string) {
  const name = (id: unknown) => Object.entries(ids).find(([, value]) => value === id)?.[0] ?? (id === createdId ? 'created' : id);
  const { contact_id, error, ...rest } = result as { contact_id?: string; error?: Record<string, unknown> };
  const out: Record<string, unknown> = { ...rest };
  if (contact_id !== undefined) out.contact = name(contact_id);
  if (error) {
    const details = error.details as Record<string, unknown> | undefined;
    out.error = {
      ...error,
      request_id: undefined,
      ...(details?.conflicting_contact_id ? { details: { ...details, conflicting_contact_id: name(details.conflicting_contact_id) } } : {}),
    };
  }
  return out;
}

describe('POST contacts/batch: a mixed batch', () => {
  it.each([
    ['with a 409 (the batch runs item by item)', true],
    ['without a 409 (the batch is one call)', false],
  ])('%s: answers every item, in request order, as the single PUT does, and writes only the valid ones', async (_label, withConflict) => {
    const batchWs = await workspaceWithKey();
    const singleWs = await workspaceWithKey();
    const batchWorld = await mixedWorld(batchWs, withConflict);
    const singleWorld = await mixedWorld(singleWs, withConflict);

    const response = await batchWs.send('POST', '/batch', { contacts: batchWorld.items });
    expect(response.statusCode, response.body).toBe(200);
    const { results } = response.json() as { results: Record<string, unknown>[] };
    expect(results.map((result) => result.index)).toEqual(batchWorld.items.map((_, index) => index));

    const singles: Record<string, unknown>[] = [];
    for (const item of singleWorld.items) {
      const single = await singleWs.send('PUT', '', typeof item === 'object' ? item : String(item));
      const body = single.json();
      singles.push(
        single.statusCode >= 400
          ? { status: single.statusCode, error: body }
          : {
              status: single.statusCode,
              contact_id: body.contact.id,
              action: body.action,
              matched_by: body.matched_by,
              warnings: body.warnings,
            },
      );
    }
    const createdIn = (rs: Record<string, unknown>[]) => rs[0]!.contact_id as string;
    expect(results.map((r) => comparable(r, batchWorld.ids, createdIn(results)))).toEqual(
      singles.map((s, index) => ({ index, ...comparable(s, singleWorld.ids, createdIn(singles)) })),
    );

    // The answers themselves, so that the comparison above cannot pass on two identical mistakes.
    expect(results.map((r) => [r.status, r.action ?? (r.error as { code: string }).code])).toEqual([
      [201, 'created'],
      [200, 'updated'],
      [201, 'restored'],
      [400, 'INVALID_PHONE'],
      withConflict ? [409, 'DUPLICATE_EXTERNAL_ID'] : [200, 'updated'],
      [400, 'LEGACY_ID_NOT_ACCEPTED'],
      [200, 'updated'],
      [200, 'updated'],
      [400, 'INVALID_REQUEST'],
      [400, 'INVALID_REQUEST'],
      [400, 'MISSING_IDENTIFIER'],
    ]);
    expect(results[6]!.contact_id).toBe(results[0]!.contact_id);
    if (withConflict) {
      expect(results[4]!.error).toMatchObject({
        error: 'conflict',
        details: { field: 'external_id', conflicting_contact_id: batchWorld.ids.g },
        request_id: response.headers['x-request-id'],
      });
    }
    expect(results[7]!.warnings).toEqual(['name_not_applied_user_edited_in_flow']);

    // One audit entry per written item, none for a rejected one.
    const audit = await auditRowsOf(String(response.headers['x-request-id']));
    expect(audit.map((row) => [row.contactId, row.action]).sort()).toEqual(
      [
        [results[0]!.contact_id, 'created'],
        [batchWorld.ids.a, 'updated'],
        [batchWorld.ids.b, 'restored'],
        [results[0]!.contact_id, 'updated'],
        [batchWorld.ids.e, 'updated'],
        ...(withConflict ? [] : [[batchWorld.ids.a, 'updated']]),
      ].sort(),
    );

    // Nothing left of a rejected item: no contact, and item 4 did not touch A (nor D).
    const rows = await db.select().from(contacts).where(eq(contacts.workspaceId, batchWs.workspaceId));
    expect(rows.map((row) => row.externalId).sort()).toEqual(['a', 'b', 'dupe', 'dupe', 'e', 'new-1']);
    expect(rows.find((row) => row.id === batchWorld.ids.a)).toMatchObject({
      name: 'Ana Lima',
      document: withConflict ? 'doc-a' : 'doc-a2',
    });
    expect(rows.find((row) => row.id === batchWorld.ids.f)).toMatchObject({ name: 'Fê', deletedAt: expect.any(Date) });
    expect(rows.find((row) => row.id === results[0]!.contact_id)).toMatchObject({ name: 'Nova', email: 'nova@example.com' });
    // …and no restored version of F in the change feed.
    const changes = await db.select().from(contactChanges).where(eq(contactChanges.contactId, batchWorld.ids.f));
    expect(changes.map((change) => change.changedFields)).toEqual([['external_id', 'document', 'name', 'phone'], ['deleted']]);
  });

  it('two items identifying one contact apply in order, the second to what the first wrote (one transaction, no 409)', async () => {
    const ws = await workspaceWithKey();
    const phone = mobile();
    const response = await ws.send('POST', '/batch', {
      contacts: [
        { external_id: 'twice', name: 'Primeira', phone },
        { phone, name: 'Segunda' },
        { external_id: 'twice', document: 'doc-twice' },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const { results } = response.json();
    expect(results).toMatchObject([
      { index: 0, status: 201, action: 'created', matched_by: null },
      { index: 1, status: 200, action: 'updated', matched_by: 'phone', contact_id: results[0].contact_id },
      { index: 2, status: 200, action: 'updated', matched_by: 'external_id', contact_id: results[0].contact_id },
    ]);
    const audit = await auditRowsOf(String(response.headers['x-request-id']));
    expect(audit.map((row) => row.changes.name ?? row.changes.document)).toEqual(
      expect.arrayContaining([
        { before: null, after: 'Primeira' },
        { before: 'Primeira', after: 'Segunda' },
        { before: null, after: 'doc-twice' },
      ]),
    );
    expect(audit).toHaveLength(3);
    const [row] = await db.select().from(contacts).where(eq(contacts.id, results[0].contact_id));
    expect(row).toMatchObject({ name: 'Segunda', document: 'doc-twice' });
  });
});

describe.runIf(t.db.url !== undefined)('POST contacts/batch: concurrent batches', () => {
  it('two batches updating the same contacts in opposite orders both succeed (the deadlock victim runs item by item)', async () => {
    const ws = await workspaceWithKey();
    const items = Array.from({ length: 30 }, (_, i) => ({ external_id: `dl-${i}`, name: `DL ${i}`, phone: mobile() }));
    expect((await ws.send('POST', '/batch', { contacts: items })).statusCode).toBe(200);
    for (let round = 0; round < 3; round++) {
      const forward = items.map((item) => ({ external_id: item.external_id, name: `${item.name} f${round}` }));
      const backward = [...items].reverse().map((item) => ({ external_id: item.external_id, name: `${item.name} b${round}` }));
      const answers = await Promise.all([
        ws.send('POST', '/batch', { contacts: forward }),
        ws.send('POST', '/batch', { contacts: backward }),
      ]);
      for (const answer of answers) {
        expect(answer.statusCode, answer.body).toBe(200);
        expect(answer.json().results.map((r: { status: number }) => r.status)).toEqual(items.map(() => 200));
      }
    }
  });
});

describe.runIf(t.db.url !== undefined)('POST contacts/batch: a create that loses a race', () => {
  it('answers as the single PUT does: the contact created meanwhile is updated, the others created', async () => {
    const ws = await workspaceWithKey();
    const phones = [mobile(), mobile()];
    // Another writer creates the first item's contact and has not committed yet: the batch does not
    // see it when it matches, and its INSERT waits for that transaction, then hits the unique index.
    const holder = new pg.Client({ connectionString: t.db.url });
    await holder.connect();
    let heldId: string;
    let answer: Awaited<ReturnType<Fixture['send']>>;
    try {
      await holder.query('begin');
      const { rows } = await holder.query<{ id: string }>(
        `insert into contacts (workspace_id, external_id, name, phone) values ($1, 'race-0', 'Antes', $2) returning id`,
        [ws.workspaceId, `+55${phones[0]!.replace(/\D/g, '')}`],
      );
      heldId = rows[0]!.id;
      const pending = ws.send('POST', '/batch', {
        contacts: [
          { external_id: 'race-0', name: 'Lote 0', phone: phones[0] },
          { external_id: 'race-1', name: 'Lote 1', phone: phones[1] },
        ],
      });
      await waitForLockWaiters(holder, 1);
      await holder.query('commit');
      answer = await pending;
    } finally {
      await holder.end();
    }
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().results).toMatchObject([
      { index: 0, status: 200, action: 'updated', matched_by: 'external_id', contact_id: heldId },
      { index: 1, status: 201, action: 'created', matched_by: null },
    ]);
    const rows = await db.select().from(contacts).where(eq(contacts.workspaceId, ws.workspaceId));
    expect(rows.map((row) => [row.externalId, row.name]).sort()).toEqual([
      ['race-0', 'Lote 0'],
      ['race-1', 'Lote 1'],
    ]);
    const audit = await auditRowsOf(String(answer.headers['x-request-id']));
    expect(audit.map((row) => [row.action, row.changes.name])).toEqual(
      expect.arrayContaining([
        ['updated', { before: 'Antes', after: 'Lote 0' }],
        ['created', { before: null, after: 'Lote 1' }],
      ]),
    );
    expect(audit).toHaveLength(2);
  });
});

describe('POST contacts/batch: whole-request errors', () => {
  it.each([
    [
      'more than 100 items',
      { contacts: Array.from({ length: 101 }, (_, i) => ({ external_id: `over-${i}`, name: 'N', phone: mobile() })) },
    ],
    ['an empty list', { contacts: [] }],
    ['no list', {}],
    ['an unknown field', { contacts: [{ external_id: 'u', name: 'U', phone: '11 95555-0000' }], extra: true }],
    ['not an object', [1, 2]],
  ])('400 INVALID_REQUEST for %s, and nothing written', async (_label, payload) => {
    const ws = await workspaceWithKey();
    const response = await ws.send('POST', '/batch', payload);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await db.select().from(contacts).where(eq(contacts.workspaceId, ws.workspaceId))).toEqual([]);
  });

  it('400 MALFORMED_JSON for a body that is not JSON', async () => {
    const ws = await workspaceWithKey();
    const response = await ws.send('POST', '/batch', '{"contacts": [');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'MALFORMED_JSON' });
  });

  it('403 without the contacts:write scope', async () => {
    const ws = await makeWorkspace(t);
    const readOnly = await makeKey(t, ws.workspaceId, ['contacts:read']);
    const response = await app.inject({
      method: 'POST',
      url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts/batch`,
      headers: { authorization: `Bearer ${readOnly.token}` },
      payload: { contacts: [{ external_id: 's', name: 'S', phone: mobile() }] },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
  });
});

describe('POST contacts/batch: Idempotency-Key', () => {
  it('replays the whole answer without writing again; the key with another batch → 422', async () => {
    const ws = await workspaceWithKey();
    const batch = {
      contacts: [
        { external_id: 'idem-1', name: 'Um', phone: mobile() },
        { external_id: 'idem-2', name: 'Dois', phone: '1' },
      ],
    };
    const first = await ws.send('POST', '/batch', batch, { 'idempotency-key': 'load-0001' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await ws.send('POST', '/batch', batch, { 'idempotency-key': 'load-0001' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await auditRowsOf(String(again.headers['x-request-id']))).toEqual([]);
    expect(await db.select().from(contacts).where(eq(contacts.workspaceId, ws.workspaceId))).toHaveLength(1);

    const other = await ws.send(
      'POST',
      '/batch',
      { contacts: [{ external_id: 'idem-3', name: 'Três', phone: mobile() }] },
      {
        'idempotency-key': 'load-0001',
      },
    );
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect((await ws.send('POST', '/batch', batch, { 'idempotency-key': 'bad key with spaces' })).statusCode).toBe(400);
  });
});

describe('POST contacts/batch: Idempotency-Key races', () => {
  it("answers simultaneous batches with one key all alike, with the winner's stored answer, and writes once", async () => {
    const ws = await workspaceWithKey();
    const batch = {
      contacts: [
        { external_id: 'race-1', name: 'Um', phone: mobile() },
        { external_id: 'race-2', name: 'Dois', phone: mobile() },
      ],
    };
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => ws.send('POST', '/batch', batch, { 'idempotency-key': 'race-0001' })),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    // Every caller gets the first answer word for word (both items "created"), not one of its own.
    const bodies = answers.map((answer) => answer.json());
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect(bodies[0].results.map((item: { action: string }) => item.action)).toEqual(['created', 'created']);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    // Only the winner's writes stay: its two audit entries, no other request's.
    const audited = await db.select().from(contactExternalApiAuditLogs).where(eq(contactExternalApiAuditLogs.workspaceId, ws.workspaceId));
    expect(audited).toHaveLength(2);
    expect(new Set(audited.map((row) => row.requestId)).size).toBe(1);
  });
});

describe('POST contacts/batch: the item budget', () => {
  it('counts a batch as one request plus its items; over the budget → 429 with nothing written', async () => {
    // Windows are clock minutes: start early in one so that the whole test stays in it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const ws = await workspaceWithKey();
    const items = (prefix: string, count: number) => ({
      contacts: Array.from({ length: count }, (_, i) => ({ external_id: `${prefix}-${i}`, name: 'Orçamento', phone: mobile() })),
    });
    const first = await ws.send('POST', '/batch', items('b1', 100));
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({ 'x-ratelimit-items-limit-minute': '250', 'x-ratelimit-items-remaining-minute': '150' });
    expect(Number(first.headers['x-ratelimit-items-reset-minute'])).toBe(Math.ceil(Date.now() / 60_000) * 60);
    // The request limit counts the batch once.
    expect(first.headers['x-ratelimit-limit-minute']).toBe('100000');
    expect((await ws.send('POST', '/batch', items('b2', 100))).headers['x-ratelimit-items-remaining-minute']).toBe('50');

    const refused = await ws.send('POST', '/batch', items('b3', 100));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { limit: 250, remaining: 50 } });
    expect(refused.headers['retry-after']).toBeDefined();
    const b3 = await db
      .select()
      .from(contacts)
      .where(inArray(contacts.externalId, ['b3-0', 'b3-99']));
    expect(b3).toEqual([]);

    // The refused items were given back: 50 still fit.
    const last = await ws.send('POST', '/batch', items('b4', 50));
    expect(last.statusCode).toBe(200);
    expect(last.headers['x-ratelimit-items-remaining-minute']).toBe('0');
  });
});
