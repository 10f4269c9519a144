import { describe, expect, it } from 'vitest';
import { eq, sql } from '../../src/platform/db/drizzle.ts';
import { chatMessages, contactExternalApiAuditLogs } from '../../src/platform/db/schema/index.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeUser, makeWorkspace } from '../helpers/crm.ts';

// The operator's workflow through the CRM side and the external API: sync policy, audit trail, surveys.
const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_RATE_LIMIT_PER_MINUTE: '100000' }, startWorkers: true });
const { app } = t;
const db = t.db.database.db;
const ws = await makeWorkspace(t);
const agent = await makeUser(t, ws.workspaceId, 'agent');
const key = await makeKey(t, ws.workspaceId);
const adminCookie = await loginCookie(app, ws.admin.email, ws.admin.password);
const agentCookie = await loginCookie(app, agent.email, agent.password);
const W = `/flow/v1/api/workspaces/${ws.workspaceId}`;
const X = `/flow/v1/external/workspaces/${ws.workspaceId}`;

const crm = (method: string, url: string, cookie: string, payload?: object) =>
  app.inject({ method: method as 'GET', url: `${W}${url}`, headers: { cookie }, ...(payload ? { payload } : {}) });
const ext = (method: string, url: string, payload?: object) =>
  app.inject({
    method: method as 'GET',
    url: `${X}${url}`,
    headers: { authorization: `Bearer ${key.token}` },
    ...(payload ? { payload } : {}),
  });

describe('sync policy', () => {
  it('under flow, a CRM-edited name and phone are kept and the upsert warns; under erp the payload wins', async () => {
    const created = (await ext('PUT', '/contacts', { external_id: 'sp-1', name: 'Gabi', phone: '11 96666-0001' })).json().contact;
    const edit = await crm('PATCH', `/contacts/${created.id}`, agentCookie, { name: 'Gabriela (CRM)', phone: '11 96666-0002' });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json()).toMatchObject({ name: 'Gabriela (CRM)', phone: '+5511966660002', name_edited_in_flow: { by_user_id: agent.id } });

    const kept = await ext('PUT', '/contacts', { external_id: 'sp-1', name: 'Gabi ERP', phone: '11 96666-0003', email: 'g@x.com' });
    expect(kept.statusCode).toBe(200);
    expect(kept.json()).toMatchObject({
      contact: { name: 'Gabriela (CRM)', phone: '+5511966660002', email: 'g@x.com' },
      warnings: ['name_not_applied_user_edited_in_flow', 'phone_not_applied_user_edited_in_flow'],
    });
    // The same value as the CRM's is no conflict, so no warning.
    expect((await ext('PUT', '/contacts', { external_id: 'sp-1', name: 'Gabriela (CRM)' })).json().warnings).toEqual([]);

    expect((await crm('PATCH', '/settings', agentCookie, { contact_sync_policy: 'erp' })).statusCode).toBe(403);
    expect((await crm('PATCH', '/settings', adminCookie, { contact_sync_policy: 'erp' })).json()).toEqual({
      contact_sync_policy: 'erp',
      external_id_rekeying: 'replace',
    });
    const wins = await ext('PUT', '/contacts', { external_id: 'sp-1', name: 'Gabi ERP', phone: '11 96666-0003' });
    expect(wins.json()).toMatchObject({ contact: { name: 'Gabi ERP', phone: '+5511966660003' }, warnings: [] });
    await crm('PATCH', '/settings', adminCookie, { contact_sync_policy: 'flow' });
  });

  it('the CRM record has pets and the legacy id; the external projection never does', async () => {
    const created = (await ext('PUT', '/contacts', { name: 'Hugo', phone: '11 96666-0010' })).json().contact;
    const pet = await crm('POST', `/contacts/${created.id}/pets`, agentCookie, {
      name: 'Rex',
      species: 'cão',
      breed: 'SRD',
      birth_date: '2020-05-01',
    });
    expect(pet.statusCode, pet.body).toBe(201);
    const full = (await crm('GET', `/contacts/${created.id}`, agentCookie)).json();
    expect(full.pets).toEqual([{ id: expect.any(String), name: 'Rex', species: 'cão', breed: 'SRD', birth_date: '2020-05-01' }]);
    expect(full).toHaveProperty('legacy_id');
    const projection = (await ext('GET', `/contacts/${created.id}`)).json();
    expect(projection).not.toHaveProperty('pets');
    expect(projection).not.toHaveProperty('legacy_id');
    const list = (await crm('GET', '/contacts?q=hug', agentCookie)).json();
    expect(list.data.map((c: { id: string }) => c.id)).toContain(created.id);
  });
});

describe('audit trail', () => {
  it('has one entry per successful external PUT/DELETE, none for failures, readable by administrators only', async () => {
    const created = (
      await app.inject({
        method: 'PUT',
        url: `${X}/contacts`,
        headers: { authorization: `Bearer ${key.token}`, 'x-request-id': 'req-audit-1' },
        payload: { external_id: 'au-1', name: 'Iris', phone: '11 96666-0020' },
      })
    ).json().contact;
    await ext('PUT', '/contacts', { external_id: 'au-1', name: 'Iris Lima' });
    await ext('PUT', '/contacts', { external_id: 'au-1', name: null }); // 400: not audited
    await ext('DELETE', `/contacts/${created.id}`);
    await ext('PUT', '/contacts', { external_id: 'au-1' });

    expect((await crm('GET', `/contacts/${created.id}/audit-logs`, agentCookie)).statusCode).toBe(403);
    const trail = await crm('GET', `/contacts/${created.id}/audit-logs?limit=10`, adminCookie);
    expect(trail.statusCode, trail.body).toBe(200);
    const body = trail.json();
    expect(body.meta).toMatchObject({ total: 4 });
    expect(body.data.map((entry: { action: string }) => entry.action)).toEqual(['restored', 'deleted', 'updated', 'created']);
    const first = body.data[3];
    expect(first).toMatchObject({
      api_key_prefix: key.token.slice(0, 12),
      api_key_id: key.id,
      request_id: 'req-audit-1',
      ip: expect.any(String),
      warnings: [],
      changes: { name: { before: null, after: 'Iris' }, phone: { before: null, after: '+5511966660020' } },
    });
    expect(body.data[2].changes).toEqual({ name: { before: 'Iris', after: 'Iris Lima' } });
  });

  it('the retention job deletes entries older than AUDIT_RETENTION_DAYS', async () => {
    const created = (await ext('PUT', '/contacts', { name: 'Velho', phone: '11 96666-0030' })).json().contact;
    await ext('PUT', '/contacts', { phone: '11 96666-0030', address: 'Rua C' });
    const [old] = await db.select().from(contactExternalApiAuditLogs).where(eq(contactExternalApiAuditLogs.contactId, created.id)).limit(1);
    await db
      .update(contactExternalApiAuditLogs)
      .set({ createdAt: sql`now() - interval '91 days'` })
      .where(eq(contactExternalApiAuditLogs.id, old!.id));
    // The retention run the app registered (jobs are matched by name); cron runs it daily.
    await app.vetflow.jobs.send(app.vetflow.jobs.definition('retention'), {});
    const kept = await eventually(async () => {
      const rows = await db.select().from(contactExternalApiAuditLogs).where(eq(contactExternalApiAuditLogs.contactId, created.id));
      return rows.length === 1 && !rows.some((row) => row.id === old!.id) && rows;
    });
    expect(kept).toHaveLength(1);
  });
});

describe('satisfaction surveys', () => {
  it('needs a contact and an active lead (404), reports disabled / no chat, triggers once, then already_sent', async () => {
    const contact = (await ext('PUT', '/contacts', { external_id: 'sv-1', name: 'Júlia', phone: '11 96666-0040' })).json().contact;
    expect((await ext('POST', '/satisfaction-surveys', { external_id: 'nobody' })).statusCode).toBe(404);
    expect((await ext('POST', '/satisfaction-surveys', {})).statusCode).toBe(400);
    expect((await ext('POST', '/satisfaction-surveys', { external_id: 'sv-1', extra: 1 })).statusCode).toBe(400);
    const noLead = await ext('POST', '/satisfaction-surveys', { external_id: 'sv-1' });
    expect(noLead.statusCode).toBe(404);
    expect(noLead.json().code).toBe('LEAD_NOT_FOUND');

    expect((await crm('POST', '/pipeline-stages', agentCookie, { name: 'Atendimento', position: 1 })).statusCode).toBe(403);
    const open = (await crm('POST', '/pipeline-stages', adminCookie, { name: 'Atendimento', position: 1 })).json();
    const survey = (await crm('POST', '/pipeline-stages', adminCookie, { name: 'Pesquisa', position: 2 })).json();
    const lead = (await crm('POST', '/leads', agentCookie, { contact_id: contact.id, stage_id: open.id })).json();
    expect(lead).toMatchObject({ contact_id: contact.id, stage_id: open.id, status: 'active' });
    expect((await crm('POST', '/leads', agentCookie, { contact_id: contact.id, stage_id: open.id })).statusCode).toBe(409);

    const disabled = await ext('POST', '/satisfaction-surveys', { phone: '(11) 6666-0040' });
    expect(disabled.json()).toEqual({ triggered: false, lead_id: lead.id, contact_id: contact.id, reason: 'survey_disabled' });
    expect((await crm('PUT', '/survey-config', agentCookie, { enabled: true, survey_stage_id: survey.id })).statusCode).toBe(403);
    const config = await crm('PUT', '/survey-config', adminCookie, { enabled: true, survey_stage_id: survey.id });
    expect(config.json()).toEqual({ enabled: true, survey_stage_id: survey.id });
    expect((await ext('POST', '/satisfaction-surveys', { external_id: 'sv-1' })).json().reason).toBe('no_chat');

    await crm('POST', '/chats', agentCookie, { contact_id: contact.id });
    const [a, b] = await Promise.all([
      ext('POST', '/satisfaction-surveys', { external_id: 'sv-1', reason: 'consulta' }),
      ext('POST', '/satisfaction-surveys', { external_id: 'sv-1', reason: 'consulta' }),
    ]);
    const results = [a.json(), b.json()];
    expect(results.filter((r) => r.triggered)).toEqual([{ triggered: true, lead_id: lead.id, contact_id: contact.id, reason: 'consulta' }]);
    expect(results.filter((r) => !r.triggered).map((r) => r.reason)).toEqual(['already_sent']);
    expect((await ext('POST', '/satisfaction-surveys', { external_id: 'sv-1' })).json()).toMatchObject({
      triggered: false,
      reason: 'already_sent',
    });

    // The lead moved to the survey stage, and the record provider delivered exactly one message.
    const moved = await crm('PATCH', `/leads/${lead.id}`, agentCookie, {});
    expect(moved.json().stage_id).toBe(survey.id);
    const sent = await eventually(async () => {
      const rows = await db.select().from(chatMessages).where(eq(chatMessages.leadId, lead.id));
      return rows.every((row) => row.status === 'sent') && rows.length > 0 ? rows : undefined;
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: 'satisfaction_survey', reason: 'consulta', provider: 'record' });

    await crm('PATCH', `/leads/${lead.id}`, agentCookie, { status: 'finished' });
    expect((await ext('POST', '/satisfaction-surveys', { external_id: 'sv-1' })).statusCode).toBe(404);
    await ext('DELETE', `/contacts/${contact.id}`);
    expect((await ext('POST', '/satisfaction-surveys', { external_id: 'sv-1' })).json().code).toBe('CONTACT_NOT_FOUND');
  });
});
