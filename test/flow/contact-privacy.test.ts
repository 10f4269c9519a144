import { describe, expect, it } from 'vitest';
import { CRM_SCOPES } from '../../src/flow/keys/scopes.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { dumpDatabase } from '../helpers/dump.ts';
import { settled } from '../helpers/settled.ts';

// The LGPD answers of the CRM (docs/privacy.md): a contact's data subject export, and its erasure,
// after which nothing of the person is left anywhere in the database, pg-boss's tables included.

const t = await createTestApp({ env: CRM_TEST_ENV, startWorkers: true });
const { app } = t;
const db = t.db.database.db;
const home = await makeWorkspace(t);
const other = await makeWorkspace(t);
const key = await makeKey(t, home.workspaceId, CRM_SCOPES);
const otherKey = await makeKey(t, other.workspaceId, CRM_SCOPES);
const cookie = await loginCookie(app, home.admin.email, home.admin.password);

// The person: every value is a canary searched for in the whole database after the erasure.
const CANARY = {
  name: 'Zacarias Canarinho Quintela',
  phone: '11 98765-4321',
  email: 'zq.canario@example.org',
  document: '529.982.247-25',
  externalId: 'ERP-CANARIO-77',
  address: 'Rua do Canario Amarelo 77',
  pet: 'Piupiu Canarinho',
  reason: 'consulta de Zacarias Canarinho',
};
// The phone is stored in E.164 (+5511987654321), which holds these digits.
const needles = [CANARY.name, '987654321', CANARY.email, CANARY.document, CANARY.externalId, CANARY.address, CANARY.pet];

const base = (workspaceId = home.workspaceId) => `/flow/v1/external/workspaces/${workspaceId}`;
function ext(method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown, token = key.token, workspaceId?: string) {
  return app.inject({
    method,
    url: `${base(workspaceId)}${path}`,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}
function crm(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
  return app.inject({
    method,
    url: `/flow/v1/api/workspaces/${home.workspaceId}${path}`,
    headers: { cookie },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}
async function feed(contactId: string) {
  await settled(db);
  const page = (await ext('GET', '/contacts/changes?limit=1000')).json();
  return page.data.filter((change: { contact_id: string }) => change.contact_id === contactId);
}
const found = (dump: string) => needles.filter((needle) => dump.includes(needle));

// Everything a contact touches: the contact (upsert, then an update: audit before/after, feed
// versions), a batch with an Idempotency-Key, a pet, a lead, a chat and a survey message (whose
// reason names the person) delivered by the survey job, and a second, unrelated contact.
const created = await ext('PUT', '/contacts', {
  external_id: CANARY.externalId,
  document: CANARY.document,
  name: CANARY.name,
  phone: CANARY.phone,
  email: CANARY.email,
});
expect(created.statusCode, created.body).toBe(201);
const contactId: string = created.json().contact.id;
expect((await ext('PUT', '/contacts', { external_id: CANARY.externalId, address: CANARY.address })).statusCode).toBe(200);
const batch = await app.inject({
  method: 'POST',
  url: `${base()}/contacts/batch`,
  headers: { authorization: `Bearer ${key.token}`, 'idempotency-key': 'privacy-batch-1' },
  payload: {
    contacts: [
      { phone: CANARY.phone, email: CANARY.email },
      { phone: 'not a phone', name: CANARY.name },
    ],
  },
});
expect(batch.statusCode, batch.body).toBe(200);
const bystander = (await ext('PUT', '/contacts', { name: 'Beatriz Outra', phone: '11 91234-0000' })).json().contact;
expect((await crm('POST', `/contacts/${contactId}/pets`, { name: CANARY.pet, species: 'bird' })).statusCode).toBe(201);
const stage = (await crm('POST', '/pipeline-stages', { name: 'Pós-consulta', position: 1 })).json();
const lead = (await crm('POST', '/leads', { contact_id: contactId, stage_id: stage.id })).json();
const chat = (await crm('POST', '/chats', { contact_id: contactId })).json();
expect((await crm('PUT', '/survey-config', { enabled: true, survey_stage_id: stage.id })).statusCode).toBe(200);
const survey = await ext('POST', '/satisfaction-surveys', { phone: CANARY.phone, reason: CANARY.reason });
expect(survey.json(), survey.body).toMatchObject({ triggered: true, contact_id: contactId });
// The survey job has run (pg-boss keeps the finished job and its payload).
await eventually(async () => (await ext('GET', `/contacts/${contactId}/export`)).json().surveys?.[0]?.status === 'sent');

describe('GET …/contacts/{id}/export', () => {
  it('answers everything held about the contact as one document', async () => {
    const response = await ext('GET', `/contacts/${contactId}/export`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['audit_logs', 'chats', 'contact', 'exported_at', 'leads', 'pets', 'surveys']);
    expect(body.contact).toMatchObject({
      id: contactId,
      name: CANARY.name,
      phone: '+5511987654321',
      email: CANARY.email,
      document: CANARY.document,
      external_id: CANARY.externalId,
      address: CANARY.address,
      deleted_at: null,
      legacy_id: null,
    });
    expect(body.pets).toEqual([expect.objectContaining({ name: CANARY.pet, species: 'bird' })]);
    expect(body.leads).toEqual([expect.objectContaining({ id: lead.id, stage_id: stage.id, stage_name: 'Pós-consulta' })]);
    expect(body.chats).toEqual([
      expect.objectContaining({ id: chat.id, channel: 'whatsapp', messages: [expect.objectContaining({ kind: 'satisfaction_survey' })] }),
    ]);
    expect(body.surveys).toEqual([expect.objectContaining({ lead_id: lead.id, chat_id: chat.id, reason: CANARY.reason, status: 'sent' })]);
    // Create, update, the batch item: one audit entry per external write.
    expect(body.audit_logs.map((entry: { action: string }) => entry.action)).toEqual(['created', 'updated', 'updated']);
    expect(body.audit_logs[0].changes.name).toEqual({ before: null, after: CANARY.name });
    expect(Date.parse(body.exported_at)).not.toBeNaN();
  });

  it('exports a soft-deleted contact too (its data is still held)', async () => {
    const gone = (await ext('PUT', '/contacts', { name: 'Temporário', phone: '11 95555-0101' })).json().contact;
    expect((await ext('DELETE', `/contacts/${gone.id}`)).statusCode).toBe(204);
    expect((await ext('GET', `/contacts/${gone.id}`)).statusCode).toBe(404);
    const response = await ext('GET', `/contacts/${gone.id}/export`);
    expect(response.statusCode).toBe(200);
    expect(response.json().contact).toMatchObject({ id: gone.id, name: 'Temporário', deleted_at: expect.any(String) });
    expect(response.json().audit_logs.map((entry: { action: string }) => entry.action)).toEqual(['created', 'deleted']);
  });

  it("is 404 for an unknown id and for another workspace's contact, 400 for a malformed one", async () => {
    expect((await ext('GET', '/contacts/6f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10/export')).statusCode).toBe(404);
    const theirs = await ext('GET', `/contacts/${contactId}/export`, undefined, otherKey.token, other.workspaceId);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().code).toBe('CONTACT_NOT_FOUND');
    expect((await ext('GET', '/contacts/not-a-uuid/export')).statusCode).toBe(400);
  });
});

describe('POST …/contacts/{id}/erase', () => {
  let erasedAt = '';

  it("needs contacts:erase, and never erases another workspace's contact", async () => {
    const deleter = await makeKey(t, home.workspaceId, ['contacts:read', 'contacts:write', 'contacts:delete']);
    const refused = await ext('POST', `/contacts/${contactId}/erase`, undefined, deleter.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { required_scope: 'contacts:erase' } });
    const theirs = await ext('POST', `/contacts/${contactId}/erase`, undefined, otherKey.token, other.workspaceId);
    expect(theirs.statusCode).toBe(404);
    expect((await ext('GET', `/contacts/${contactId}`)).statusCode).toBe(200);
  });

  it('leaves nothing of the person in any table, pg-boss included', async () => {
    // The test could fail: before the erasure every canary is there.
    expect(found(await dumpDatabase(db))).toEqual(needles);

    const response = await ext('POST', `/contacts/${contactId}/erase`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toEqual({ erased: true, contact_id: contactId, erased_at: expect.any(String) });
    erasedAt = body.erased_at;

    expect(found(await dumpDatabase(db))).toEqual([]);
    // The bystander is untouched.
    expect((await ext('GET', `/contacts/${bystander.id}`)).json()).toMatchObject({ name: 'Beatriz Outra' });
  });

  it('makes the contact gone: 404 to read, export or delete; a later upsert with the same identifiers creates a new one', async () => {
    for (const [method, path] of [
      ['GET', `/contacts/${contactId}`],
      ['GET', `/contacts/${contactId}/export`],
      ['DELETE', `/contacts/${contactId}`],
    ] as const) {
      const response = await ext(method, path);
      expect(response.statusCode, `${method} ${path}`).toBe(404);
      expect(response.json().code).toBe('CONTACT_NOT_FOUND');
    }
    const crmSide = await crm('GET', `/contacts/${contactId}`);
    expect(crmSide.statusCode).toBe(404);
    const listed = (await crm('GET', '/contacts?limit=100')).json();
    expect(listed.data.map((contact: { id: string }) => contact.id)).not.toContain(contactId);

    const again = await ext('PUT', '/contacts', { name: 'Zacarias de novo', phone: CANARY.phone, document: CANARY.document });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ action: 'created', matched_by: null });
    expect(again.json().contact.id).not.toBe(contactId);
    // Nothing came back from the erased contact.
    expect(again.json().contact).toMatchObject({ external_id: null, email: null, address: null });
    // A survey trigger finds the new contact, not the erased one (which has no lead any more to it).
    const trigger = await ext('POST', '/satisfaction-surveys', { phone: CANARY.phone });
    expect(trigger.statusCode).toBe(404);
    expect(trigger.json().code).toBe('LEAD_NOT_FOUND');
  });

  it('shows one erased change in the feed, and no personal value in the earlier ones', async () => {
    const changes = await feed(contactId);
    // (The batch item changed nothing: audited, but no new version.)
    expect(changes.map((change: { change: string }) => change.change)).toEqual(['created', 'updated', 'erased']);
    const erased = changes.at(-1);
    expect(erased).toMatchObject({ contact_id: contactId, change: 'erased', contact: null, deleted: true });
    for (const change of changes.slice(0, -1)) {
      expect(change.contact).toMatchObject({ id: contactId, name: '[erased]', phone: '[erased]', email: null, document: null });
      expect(change.contact.external_id).toBeNull();
    }
  });

  it('keeps the audit trail readable, without values, with the erasure audited', async () => {
    const trail = (await crm('GET', `/contacts/${contactId}/audit-logs?limit=100`)).json();
    expect(trail.data.map((entry: { action: string }) => entry.action)).toEqual(['erased', 'updated', 'updated', 'created']);
    expect(trail.data[0]).toMatchObject({ changes: {}, api_key_prefix: key.token.slice(0, 12) });
    expect(trail.data.at(-1).changes.name).toEqual({ before: null, after: '[erased]' });
  });

  it('is a no-op the second time: 200 with the first erased_at, nothing written', async () => {
    const count = async () => {
      const result = (await db.execute(
        sql`select (select count(*) from contact_external_api_audit_logs where contact_id = ${contactId})::int as audit,
          (select count(*) from contact_changes where contact_id = ${contactId})::int as changes`,
      )) as unknown as { rows: { audit: number; changes: number }[] };
      return result.rows[0];
    };
    const before = await count();
    const response = await ext('POST', `/contacts/${contactId}/erase`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ erased: true, contact_id: contactId, erased_at: erasedAt });
    expect(await count()).toEqual(before);
  });

  it('erases a soft-deleted contact too, and 404s an id the workspace never had', async () => {
    const deleted = (await ext('PUT', '/contacts', { name: 'Apagado Antes', phone: '11 95555-0202' })).json().contact;
    expect((await ext('DELETE', `/contacts/${deleted.id}`)).statusCode).toBe(204);
    expect((await ext('POST', `/contacts/${deleted.id}/erase`)).statusCode).toBe(200);
    expect((await feed(deleted.id)).map((change: { change: string }) => change.change)).toEqual(['created', 'deleted', 'erased']);
    expect(JSON.stringify(await dumpDatabase(db))).not.toContain('Apagado Antes');
    expect((await ext('POST', '/contacts/6f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10/erase')).statusCode).toBe(404);
  });
});
