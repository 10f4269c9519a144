import { describe, expect, it } from 'vitest';
import { desc, eq } from '../../src/platform/db/drizzle.ts';
import { contactExternalApiAuditLogs, contacts } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeWorkspace } from '../helpers/crm.ts';

// A new external_id whose document or phone matched a contact that has another external_id (a
// family sharing a landline): the contract's matching order takes that contact over. It is said
// (`external_id_replaced`, the old value audited), or refused by the workspace with 409.

const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_RATE_LIMIT_PER_MINUTE: '100000' } });
const { app } = t;
const db = t.db.database.db;

let seq = 0;
const landline = () => `11 3${String(100_0000 + ++seq).padStart(7, '0')}`;

async function workspace() {
  const ws = await makeWorkspace(t);
  const { token } = await makeKey(t, ws.workspaceId);
  const cookie = await loginCookie(app, ws.admin.email, ws.admin.password);
  const base = `/flow/v1/external/workspaces/${ws.workspaceId}/contacts`;
  return {
    put: (payload: object) => app.inject({ method: 'PUT', url: base, headers: { authorization: `Bearer ${token}` }, payload }),
    batch: (items: object[]) =>
      app.inject({ method: 'POST', url: `${base}/batch`, headers: { authorization: `Bearer ${token}` }, payload: { contacts: items } }),
    /** The setting, changed where workspace settings are changed: the CRM's settings, by an administrator. */
    rekeying: (value: 'replace' | 'refuse') =>
      app.inject({
        method: 'PATCH',
        url: `/flow/v1/api/workspaces/${ws.workspaceId}/settings`,
        headers: { cookie },
        payload: { external_id_rekeying: value },
      }),
  };
}

const lastAudit = async (contactId: string) =>
  (
    await db
      .select()
      .from(contactExternalApiAuditLogs)
      .where(eq(contactExternalApiAuditLogs.contactId, contactId))
      .orderBy(desc(contactExternalApiAuditLogs.createdAt))
      .limit(1)
  )[0];

describe('re-keying a contact matched by phone or document (external_id_rekeying: replace, the default)', () => {
  it('takes the contact over, warns external_id_replaced, and audits the old value', async () => {
    const ws = await workspace();
    const phone = landline();
    const mother = (await ws.put({ external_id: 'erp-mae', name: 'Maria', phone })).json().contact;
    const son = await ws.put({ external_id: 'erp-filho', name: 'João', phone });
    expect(son.statusCode).toBe(200);
    expect(son.json()).toMatchObject({
      action: 'updated',
      matched_by: 'phone',
      contact: { id: mother.id, external_id: 'erp-filho', name: 'João' },
      warnings: ['external_id_replaced'],
    });
    const audit = await lastAudit(mother.id);
    expect(audit).toMatchObject({
      warnings: ['external_id_replaced'],
      changes: { external_id: { before: 'erp-mae', after: 'erp-filho' } },
    });

    // By document too; and no warning where nothing is replaced: a first external_id, or the same one.
    const byDocument = (await ws.put({ external_id: 'erp-doc-1', document: '111.222.333-44', name: 'Ana', phone: landline() })).json();
    expect((await ws.put({ external_id: 'erp-doc-2', document: '111.222.333-44' })).json()).toMatchObject({
      matched_by: 'document',
      contact: { id: byDocument.contact.id, external_id: 'erp-doc-2' },
      warnings: ['external_id_replaced'],
    });
    const unkeyedPhone = landline();
    await ws.put({ name: 'Sem ERP', phone: unkeyedPhone });
    expect((await ws.put({ external_id: 'erp-novo', phone: unkeyedPhone })).json()).toMatchObject({ matched_by: 'phone', warnings: [] });
    expect((await ws.put({ external_id: 'erp-filho', phone })).json()).toMatchObject({ matched_by: 'external_id', warnings: [] });
  });

  it('says the same per item in a batch', async () => {
    const ws = await workspace();
    const phone = landline();
    const mother = (await ws.put({ external_id: 'erp-mae', name: 'Maria', phone })).json().contact;
    const response = await ws.batch([
      { external_id: 'erp-filho', name: 'João', phone },
      { external_id: 'erp-outro', name: 'Outro', phone: landline() },
    ]);
    expect(response.statusCode).toBe(200);
    expect(response.json().results).toEqual([
      { index: 0, status: 200, contact_id: mother.id, action: 'updated', matched_by: 'phone', warnings: ['external_id_replaced'] },
      expect.objectContaining({ index: 1, status: 201, action: 'created', warnings: [] }),
    ]);
    expect(await lastAudit(mother.id)).toMatchObject({
      warnings: ['external_id_replaced'],
      changes: { external_id: { before: 'erp-mae', after: 'erp-filho' } },
    });
  });
});

describe('re-keying refused (external_id_rekeying: refuse)', () => {
  it('answers 409 EXTERNAL_ID_CONFLICT naming the matched contact, and writes nothing', async () => {
    const ws = await workspace();
    expect((await ws.rekeying('refuse')).json()).toMatchObject({ external_id_rekeying: 'refuse' });
    const phone = landline();
    const mother = (await ws.put({ external_id: 'erp-mae', name: 'Maria', phone })).json().contact;
    const audited = await lastAudit(mother.id);

    const son = await ws.put({ external_id: 'erp-filho', name: 'João', phone });
    expect(son.statusCode).toBe(409);
    expect(son.json()).toMatchObject({
      code: 'EXTERNAL_ID_CONFLICT',
      details: { field: 'external_id', conflicting_contact_id: mother.id },
      request_id: expect.any(String),
    });
    const [row] = await db.select().from(contacts).where(eq(contacts.id, mother.id));
    expect(row).toMatchObject({ externalId: 'erp-mae', name: 'Maria' });
    expect((await lastAudit(mother.id))?.id).toBe(audited?.id);

    // Matching by its own external_id, or giving an unkeyed contact its first one, is no re-keying.
    expect((await ws.put({ external_id: 'erp-mae', name: 'Maria S.', phone })).statusCode).toBe(200);
    const unkeyedPhone = landline();
    await ws.put({ name: 'Sem ERP', phone: unkeyedPhone });
    expect((await ws.put({ external_id: 'erp-novo', phone: unkeyedPhone })).statusCode).toBe(200);

    // Back to replace: the same request takes the contact over, with the warning.
    await ws.rekeying('replace');
    expect((await ws.put({ external_id: 'erp-filho', name: 'João', phone })).json()).toMatchObject({ warnings: ['external_id_replaced'] });
  });

  it('refuses only the offending item of a batch; the others are written', async () => {
    const ws = await workspace();
    await ws.rekeying('refuse');
    const phone = landline();
    const mother = (await ws.put({ external_id: 'erp-mae', name: 'Maria', phone })).json().contact;
    const response = await ws.batch([
      { external_id: 'erp-novo', name: 'Novo', phone: landline() },
      { external_id: 'erp-filho', name: 'João', phone },
      { external_id: 'erp-mae', email: 'maria@example.com' },
    ]);
    expect(response.statusCode).toBe(200);
    const [created, refused, updated] = response.json().results;
    expect(created).toMatchObject({ index: 0, status: 201, action: 'created' });
    expect(refused).toMatchObject({
      index: 1,
      status: 409,
      error: { code: 'EXTERNAL_ID_CONFLICT', details: { conflicting_contact_id: mother.id } },
    });
    expect(updated).toMatchObject({ index: 2, status: 200, contact_id: mother.id, matched_by: 'external_id', warnings: [] });
    const [row] = await db.select().from(contacts).where(eq(contacts.id, mother.id));
    expect(row).toMatchObject({ externalId: 'erp-mae', name: 'Maria', email: 'maria@example.com' });
  });
});
