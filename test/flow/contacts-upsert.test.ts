import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eq } from '../../src/platform/db/drizzle.ts';
import { contactExternalApiAuditLogs, contacts } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { waitForLockWaiters } from '../helpers/database.ts';

const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_RATE_LIMIT_PER_MINUTE: '100000' } });
const { app } = t;
const db = t.db.database.db;
const home = await makeWorkspace(t);
const other = await makeWorkspace(t);
const key = await makeKey(t, home.workspaceId);
const otherKey = await makeKey(t, other.workspaceId);
const base = `/flow/v1/external/workspaces/${home.workspaceId}/contacts`;

let seq = 0;
/** A fresh valid Brazilian mobile per call, so tests never share phones. */
const mobile = () => `11 9${String(7000_0000 + ++seq).padStart(8, '0')}`;
const e164 = (phone: string) => `+55${phone.replace(/\D/g, '')}`;

const put = (payload: unknown, token = key.token, url = base) =>
  app.inject({ method: 'PUT', url, headers: { authorization: `Bearer ${token}` }, payload: payload as object });

describe('PUT contacts: create, update, restore', () => {
  it('creates with 201, normalising the phone, and answers the documented shape', async () => {
    const phone = mobile();
    const response = await put({ external_id: 'erp-1', name: '  Ana Souza ', phone, email: 'ana@example.com' });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      contact: {
        id: expect.any(String),
        external_id: 'erp-1',
        document: null,
        name: 'Ana Souza',
        phone: e164(phone),
        email: 'ana@example.com',
        address: null,
        source: null,
        profile_pic_url: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        updated_at: expect.stringMatching(/Z$/),
      },
      action: 'created',
      matched_by: null,
      warnings: [],
    });
  });

  it('matches by external_id first, then document, then phone, and updates with 200', async () => {
    const phone = mobile();
    const created = (await put({ external_id: 'erp-2', document: '123.456.789-00', name: 'Bia', phone })).json().contact;
    const byExternal = await put({ external_id: 'erp-2', name: 'Bia Lima' });
    expect(byExternal.statusCode).toBe(200);
    expect(byExternal.json()).toMatchObject({
      action: 'updated',
      matched_by: 'external_id',
      contact: { id: created.id, name: 'Bia Lima' },
    });
    const byDocument = await put({ document: '123.456.789-00', address: 'Rua A, 1' });
    expect(byDocument.json()).toMatchObject({ matched_by: 'document', contact: { id: created.id, address: 'Rua A, 1' } });
    const byPhone = await put({ phone: e164(phone), source: 'site' });
    expect(byPhone.json()).toMatchObject({ matched_by: 'phone', contact: { id: created.id, source: 'site' } });
    // external_id wins over a document that points at another contact
    const second = (await put({ document: 'doc-second', name: 'Outro', phone: mobile() })).json().contact;
    const mixed = await put({ external_id: 'erp-2', document: 'doc-second' });
    expect(mixed.json()).toMatchObject({ matched_by: 'external_id', contact: { id: created.id, document: 'doc-second' } });
    expect(second.id).not.toBe(created.id);
  });

  it('treats a Brazilian mobile with and without the ninth digit as one number', async () => {
    const created = (await put({ name: 'Caio', phone: '(21) 98888-7001' })).json().contact;
    expect(created.phone).toBe('+5521988887001');
    const again = await put({ phone: '21 8888-7001', name: 'Caio Alves' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ matched_by: 'phone', contact: { id: created.id, phone: '+5521988887001', name: 'Caio Alves' } });
    // a landline keeps its eight digits
    expect((await put({ name: 'Fixo', phone: '(11) 3456-7001' })).json().contact.phone).toBe('+551134567001');
  });

  it('clears nullable fields with null, leaves absent ones alone', async () => {
    const created = (await put({ external_id: 'erp-clear', name: 'Duda', phone: mobile(), email: 'd@x.com', address: 'Rua B' })).json()
      .contact;
    const cleared = await put({ external_id: 'erp-clear', email: null, document: '' });
    expect(cleared.json().contact).toMatchObject({ id: created.id, email: null, address: 'Rua B', document: null, name: 'Duda' });
    const byPhone = await put({ phone: created.phone, external_id: null });
    expect(byPhone.json().contact).toMatchObject({ id: created.id, external_id: null });
  });

  it('soft-deletes (204, idempotent), hides the contact, and restores it on the next upsert with 201', async () => {
    const created = (await put({ external_id: 'erp-del', name: 'Eva', phone: mobile() })).json().contact;
    const url = `${base}/${created.id}`;
    const auth = { authorization: `Bearer ${key.token}` };
    expect((await app.inject({ method: 'DELETE', url, headers: auth })).statusCode).toBe(204);
    expect((await app.inject({ method: 'DELETE', url, headers: auth })).statusCode).toBe(204);
    expect((await app.inject({ method: 'GET', url, headers: auth })).statusCode).toBe(404);
    const restored = await put({ external_id: 'erp-del', name: 'Eva Restaurada' });
    expect(restored.statusCode).toBe(201);
    expect(restored.json()).toMatchObject({
      action: 'restored',
      matched_by: 'external_id',
      contact: { id: created.id, name: 'Eva Restaurada' },
    });
    const read = await app.inject({ method: 'GET', url, headers: auth });
    expect(read.statusCode).toBe(200);
    expect(Object.keys(read.json()).sort()).toEqual(
      [
        'id',
        'external_id',
        'document',
        'name',
        'phone',
        'email',
        'address',
        'source',
        'profile_pic_url',
        'created_at',
        'updated_at',
      ].sort(),
    );
  });

  it('GET: 404 for a missing contact and for another workspace, 400 for a bad uuid', async () => {
    const auth = { authorization: `Bearer ${key.token}` };
    expect((await app.inject({ method: 'GET', url: `${base}/00000000-0000-4000-8000-000000000000`, headers: auth })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `${base}/not-a-uuid`, headers: auth })).statusCode).toBe(400);
    const theirs = (
      await put({ name: 'Deles', phone: mobile() }, otherKey.token, `/flow/v1/external/workspaces/${other.workspaceId}/contacts`)
    ).json().contact;
    expect((await app.inject({ method: 'GET', url: `${base}/${theirs.id}`, headers: auth })).statusCode).toBe(404);
    expect(
      (await app.inject({ method: 'DELETE', url: `${base}/${theirs.id}`, headers: { authorization: `Bearer ${key.token}` } })).statusCode,
    ).toBe(404);
  });
});

describe('PUT contacts: invalid data is a 400', () => {
  const cases: [string, unknown, string][] = [
    ['no identifier', { name: 'X', email: 'x@y.com' }, 'MISSING_IDENTIFIER'],
    ['create without name', { phone: '11 97777-0001' }, 'INVALID_REQUEST'],
    ['create without phone', { external_id: 'nope-1', name: 'X' }, 'INVALID_REQUEST'],
    ['null name', { phone: '11 97777-0002', name: null }, 'INVALID_REQUEST'],
    ['null phone', { external_id: 'e', phone: null }, 'INVALID_REQUEST'],
    ['legacy_id', { phone: '11 97777-0003', name: 'X', legacy_id: 12 }, 'LEGACY_ID_NOT_ACCEPTED'],
    ['unknown field', { phone: '11 97777-0004', name: 'X', pets: [] }, 'INVALID_REQUEST'],
    ['invalid phone', { phone: '123', name: 'X' }, 'INVALID_PHONE'],
    ['letters as phone', { phone: 'abc', name: 'X' }, 'INVALID_PHONE'],
    // Nine digits without the area code: the right length for some country, not a Brazilian number.
    ['mobile without area code', { phone: '98765-4321', name: 'X' }, 'INVALID_PHONE'],
    ['landline without area code', { phone: '3456-7890', name: 'X' }, 'INVALID_PHONE'],
    ['too long name', { phone: '11 97777-0005', name: 'x'.repeat(201) }, 'INVALID_REQUEST'],
    ['too long external_id', { external_id: 'x'.repeat(101), phone: '11 97777-0006', name: 'X' }, 'INVALID_REQUEST'],
    ['bad email', { phone: '11 97777-0007', name: 'X', email: 'not-an-email' }, 'INVALID_REQUEST'],
    ['wrong type', { phone: 11977770008, name: 'X' }, 'INVALID_REQUEST'],
    ['array body', [], 'INVALID_REQUEST'],
  ];
  it.each(cases)('%s', async (_label, payload, code) => {
    const response = await put(payload);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().code).toBe(code);
    if (code !== 'MISSING_IDENTIFIER')
      expect(response.json().details).toMatchObject({ field: expect.any(String), reason: expect.any(String) });
  });

  it('writes nothing, and audits nothing, for a failed request', async () => {
    const before = (await db.select().from(contactExternalApiAuditLogs)).length;
    await put({ phone: '11 97777-0009', name: 'X', legacy_id: 1 });
    await put({ phone: '11 97777-0009', name: null });
    expect(await db.select().from(contacts).where(eq(contacts.phone, '+5511977770009'))).toHaveLength(0);
    expect((await db.select().from(contactExternalApiAuditLogs)).length).toBe(before);
  });

  it('answers 400 for a missing body', async () => {
    const response = await app.inject({ method: 'PUT', url: base, headers: { authorization: `Bearer ${key.token}` } });
    expect(response.statusCode).toBe(400);
  });
});

describe('uniqueness', () => {
  it('409 DUPLICATE_PHONE with the conflicting contact when an update takes a phone that is in use', async () => {
    const phoneA = mobile();
    const a = (await put({ external_id: 'dup-a', name: 'A', phone: phoneA })).json().contact;
    await put({ external_id: 'dup-b', name: 'B', phone: mobile() });
    const response = await put({ external_id: 'dup-b', phone: phoneA });
    // external_id matches B first, so the phone is a change of B that collides with A
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'DUPLICATE_PHONE', details: { conflicting_contact_id: a.id } });
  });

  it('409 DUPLICATE_EXTERNAL_ID when restoring a contact whose external_id another active contact now holds', async () => {
    const d = (await put({ external_id: 'dupx-d', document: 'dupx-d-doc', name: 'D', phone: mobile() })).json().contact;
    await app.inject({ method: 'DELETE', url: `${base}/${d.id}`, headers: { authorization: `Bearer ${key.token}` } });
    // Another contact takes the freed external_id (as a CRM user could).
    const e = (await put({ external_id: 'dupx-e', name: 'E', phone: mobile() })).json().contact;
    await db.update(contacts).set({ externalId: 'dupx-d' }).where(eq(contacts.id, e.id));
    const restore = await put({ document: 'dupx-d-doc' });
    expect(restore.statusCode).toBe(409);
    expect(restore.json()).toMatchObject({ code: 'DUPLICATE_EXTERNAL_ID', details: { conflicting_contact_id: e.id } });
  });

  it('50 concurrent identical creates make exactly one contact', async () => {
    const phone = mobile();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => put({ external_id: 'race-1', name: 'Corrida', phone, document: 'race-doc' })),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(49);
    const rows = await db.select().from(contacts).where(eq(contacts.externalId, 'race-1'));
    expect(rows).toHaveLength(1);
    expect(new Set(responses.map((response) => response.json().contact.id)).size).toBe(1);
  });

  it('20 concurrent updates of one contact all apply, each audited against the value it replaced', async () => {
    const phone = mobile();
    const created = (await put({ external_id: 'race-2', name: 'Nome 0', phone })).json().contact;
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => put({ external_id: 'race-2', name: `Nome ${i + 1}` })));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    const entries = await db
      .select()
      .from(contactExternalApiAuditLogs)
      .where(eq(contactExternalApiAuditLogs.contactId, created.id))
      .orderBy(contactExternalApiAuditLogs.createdAt);
    // The updates serialise into one chain: every "before" is the "after" of exactly one earlier
    // write (none lost, none applied against a stale read), ending at the stored name.
    const updates = entries.filter((entry) => entry.action === 'updated').map((entry) => entry.changes.name!);
    expect(updates).toHaveLength(20);
    const befores = updates.map((change) => change.before);
    const afters = updates.map((change) => change.after);
    expect(new Set(befores).size).toBe(20);
    expect(befores.filter((before) => !afters.includes(before))).toEqual(['Nome 0']);
    const [stored] = await db.select().from(contacts).where(eq(contacts.id, created.id));
    expect(afters.filter((after) => !befores.includes(after))).toEqual([stored!.name]);
  });

  // Forces the overlap the test above only hopes for: another connection holds the contact's row
  // lock (having changed the name) while updates arrive, so they all read the contact before any
  // can write it. Each must still be audited against the value it replaced: a write against the
  // stale read must not apply (the version check sends it to the locked retry). Postgres only (the
  // embedded database has a single connection).
  it.runIf(t.db.url !== undefined)('updates queued behind a held row lock each see the value they replace', async () => {
    const created = (await put({ external_id: 'race-3', name: 'Nome 0', phone: mobile() })).json().contact;
    const holder = new pg.Client({ connectionString: t.db.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`update contacts set name = 'Nome locked' where id = $1`, [created.id]);
      const pending = Promise.all(Array.from({ length: 5 }, (_, i) => put({ external_id: 'race-3', name: `Nome ${i + 1}` })));
      await waitForLockWaiters(holder, 1);
      // Let the rest arrive too (some wait in the app for a connection or the rate limiter).
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.query('commit');
      const responses = await pending;
      expect(responses.map((response) => response.statusCode)).toEqual(Array(5).fill(200));
    } finally {
      await holder.end();
    }
    const updates = (
      await db
        .select()
        .from(contactExternalApiAuditLogs)
        .where(eq(contactExternalApiAuditLogs.contactId, created.id))
        .orderBy(contactExternalApiAuditLogs.createdAt)
    )
      .filter((entry) => entry.action === 'updated')
      .map((entry) => entry.changes.name!.before);
    // One chain from the locking transaction's value; none against the value all had read.
    expect(new Set(updates).size).toBe(5);
    expect(updates).toContain('Nome locked');
    expect(updates).not.toContain('Nome 0');
  });
});
