import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CRM_TEST_ENV } from '../helpers/crm.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { type RunningServer, runCli, startServer } from '../helpers/processes.ts';

// Issue 7, "Done when": an operator, through the CLI and the CRM-side endpoints only, sets up a
// workspace where an ERP key creates, updates, restores, reads and deletes contacts; a CRM user's
// edit produces the warning; the admin sees the audit trail; a survey triggers once, then reports
// already_sent. Everything goes through the real CLI process and the real server process over HTTP,
// on the database kind of this run: a Postgres test database, or an embedded data directory.

const pg = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL ? await createTestDatabase() : undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-journey-'));
const env = { DATA_DIR: dataDir, ...(pg?.url ? { DATABASE_URL: pg.url } : {}), ...CRM_TEST_ENV };
let server: RunningServer | undefined;
afterAll(async () => {
  await server?.stop();
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const ADMIN = { email: 'dra.helena@journey.example', password: 'senha longa da admin' };
const AGENT = { email: 'recepcao@journey.example', password: 'senha longa do agente' };
const SCOPES = ['contacts:read', 'contacts:write', 'contacts:delete', 'satisfaction:write'];

/** What the journey learns along the way. */
const s = {
  workspaceId: '',
  adminId: '',
  agentId: '',
  keyId: '',
  token: '',
  adminCookie: '',
  agentCookie: '',
  stages: { open: '', survey: '' },
  ana: '',
  bruno: '',
  /** Every audited write on Ana, oldest first, as the trail must show it. */
  trail: [] as { action: string; request_id: string; changes: Record<string, unknown>; warnings: string[] }[],
};

/** `vetflow <command> --flag value ...` as argv. */
const argv = (command: string, flags: Record<string, string>) => [
  ...command.split(' '),
  ...Object.entries(flags).flatMap(([name, value]) => [`--${name}`, value]),
];

/** Runs the CLI as its own process and returns the one JSON object it prints (docs/operations.md). */
async function cli(command: string, flags: Record<string, string>): Promise<Record<string, unknown>> {
  const result = await runCli(argv(command, flags), env);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout);
}

interface Reply {
  status: number;
  body: any;
  requestId: string;
  headers: Headers;
}

async function call(method: string, url: string, headers: Record<string, string>, payload?: unknown): Promise<Reply> {
  const response = await fetch(`${server!.baseUrl}${url}`, {
    method,
    headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : null,
    requestId: response.headers.get('x-request-id')!,
    headers: response.headers,
  };
}

/** CRM side: `W` = /flow/v1/api/workspaces/{id}, with a user's session cookie. */
const crm = (method: string, url: string, cookie: string, payload?: unknown) =>
  call(method, `/flow/v1/api/workspaces/${s.workspaceId}${url}`, { cookie }, payload);
/** ERP side: /flow/v1/external/workspaces/{id}, with the bearer key the CLI printed. */
const erp = (method: string, url: string, payload?: unknown) =>
  call(method, `/flow/v1/external/workspaces/${s.workspaceId}${url}`, { authorization: `Bearer ${s.token}` }, payload);

function expectError(reply: Reply, status: number, body: { error: string; code: string; message: string; details?: object }) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body).toEqual({ ...body, request_id: reply.requestId });
}

/** Records an audited write on Ana, with the changes and warnings its audit entry must carry. */
function audited(reply: Reply, action: string, changes: Record<string, unknown>, warnings: string[] = []) {
  s.trail.push({ action, request_id: reply.requestId, changes, warnings });
}

async function login(credentials: { email: string; password: string }) {
  const reply = await call('POST', '/flow/v1/api/auth/login', {}, credentials);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const cookie = reply.headers.get('set-cookie')!;
  expect(cookie).toMatch(/^vetflow_session=[A-Za-z0-9_-]+; Path=\/flow\/v1; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
  return { body: reply.body, cookie: cookie.split(';')[0]! };
}

describe('operator journey: CLI + CRM side + ERP key ', () => {
  it('1. the operator creates the workspace, an agent and an ERP key with the CLI', async () => {
    const workspace = await cli('workspace create', {
      name: 'Clínica Jornada',
      'admin-email': ADMIN.email,
      'admin-password': ADMIN.password,
    });
    expect(workspace).toEqual({ workspace_id: expect.stringMatching(UUID), admin_user_id: expect.stringMatching(UUID) });
    s.workspaceId = String(workspace.workspace_id);
    s.adminId = String(workspace.admin_user_id);

    const agent = await cli('user create', { workspace: s.workspaceId, email: AGENT.email, password: AGENT.password, role: 'agent' });
    expect(agent).toEqual({ user_id: expect.stringMatching(UUID) });
    s.agentId = String(agent.user_id);

    const key = await cli('crm-key create', { workspace: s.workspaceId, name: 'ERP Jornada', scopes: SCOPES.join(',') });
    expect(key).toEqual({
      id: expect.stringMatching(UUID),
      token: expect.stringMatching(/^crm_live_[0-9A-Za-z]{38}$/),
      workspace_id: s.workspaceId,
      scopes: SCOPES,
    });
    s.keyId = String(key.id);
    s.token = String(key.token);
  });

  it('2. the server on the same database knows the key and lets both users log in', async () => {
    server = await startServer(env);
    const me = await call('GET', '/flow/v1/external/me', { authorization: `bearer ${s.token}` });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      workspace_id: s.workspaceId,
      workspace_name: 'Clínica Jornada',
      key: { name: 'ERP Jornada', prefix: s.token.slice(0, 12), scopes: SCOPES },
    });

    const admin = await login(ADMIN);
    expect(admin.body).toEqual({
      user: { id: s.adminId, email: ADMIN.email, role: 'administrator' },
      workspace: { id: s.workspaceId, name: 'Clínica Jornada' },
      expires_at: expect.stringMatching(TIMESTAMP),
    });
    s.adminCookie = admin.cookie;
    const agent = await login(AGENT);
    expect(agent.body).toMatchObject({ user: { id: s.agentId, email: AGENT.email, role: 'agent' } });
    s.agentCookie = agent.cookie;
  });

  it('3. the admin creates pipeline stages and enables the survey; the policy starts as flow', async () => {
    expect((await crm('GET', '/settings', s.adminCookie)).body).toEqual({ contact_sync_policy: 'flow', external_id_rekeying: 'replace' });
    expect((await crm('GET', '/survey-config', s.adminCookie)).body).toEqual({ enabled: false, survey_stage_id: null });

    const open = await crm('POST', '/pipeline-stages', s.adminCookie, { name: 'Atendimento', position: 1 });
    expect(open.status).toBe(201);
    expect(open.body).toEqual({ id: expect.stringMatching(UUID), name: 'Atendimento', position: 1 });
    const survey = await crm('POST', '/pipeline-stages', s.adminCookie, { name: 'Pesquisa de satisfação', position: 2 });
    expect(survey.status).toBe(201);
    s.stages = { open: open.body.id, survey: survey.body.id };
    expect((await crm('GET', '/pipeline-stages', s.agentCookie)).body).toEqual({ data: [open.body, survey.body], meta: { total: 2 } });

    const config = await crm('PUT', '/survey-config', s.adminCookie, { enabled: true, survey_stage_id: s.stages.survey });
    expect(config.status).toBe(200);
    expect(config.body).toEqual({ enabled: true, survey_stage_id: s.stages.survey });
  });

  it('4. the ERP key creates, updates (by each identifier), deletes, restores and reads a contact', async () => {
    const created = await erp('PUT', '/contacts', {
      external_id: 'erp-1001',
      document: '123.456.789-09',
      name: ' Ana Souza ',
      phone: '(11) 98765-4321',
      email: 'ana@example.com',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      contact: {
        id: expect.stringMatching(UUID),
        external_id: 'erp-1001',
        document: '123.456.789-09',
        name: 'Ana Souza',
        phone: '+5511987654321',
        email: 'ana@example.com',
        address: null,
        source: null,
        profile_pic_url: null,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      },
      action: 'created',
      matched_by: null,
      warnings: [],
    });
    s.ana = created.body.contact.id;
    audited(created, 'created', {
      external_id: { before: null, after: 'erp-1001' },
      document: { before: null, after: '123.456.789-09' },
      name: { before: null, after: 'Ana Souza' },
      phone: { before: null, after: '+5511987654321' },
      email: { before: null, after: 'ana@example.com' },
    });

    const byExternalId = await erp('PUT', '/contacts', { external_id: 'erp-1001', address: 'Rua das Flores, 10' });
    expect(byExternalId.status).toBe(200);
    expect(byExternalId.body).toMatchObject({
      contact: { id: s.ana, address: 'Rua das Flores, 10', name: 'Ana Souza' },
      action: 'updated',
      matched_by: 'external_id',
      warnings: [],
    });
    audited(byExternalId, 'updated', { address: { before: null, after: 'Rua das Flores, 10' } });

    const byDocument = await erp('PUT', '/contacts', { document: '123.456.789-09', source: 'balcão' });
    expect(byDocument.status).toBe(200);
    expect(byDocument.body).toMatchObject({ contact: { id: s.ana, source: 'balcão' }, action: 'updated', matched_by: 'document' });
    audited(byDocument, 'updated', { source: { before: null, after: 'balcão' } });

    // The old eight-digit form of the same mobile finds the same contact and keeps the canonical phone.
    const withoutNinthDigit = await erp('PUT', '/contacts', { phone: '11 8765-4321', email: 'ana.souza@example.com' });
    expect(withoutNinthDigit.status).toBe(200);
    expect(withoutNinthDigit.body).toMatchObject({
      contact: { id: s.ana, phone: '+5511987654321', email: 'ana.souza@example.com' },
      action: 'updated',
      matched_by: 'phone',
      warnings: [],
    });
    audited(withoutNinthDigit, 'updated', { email: { before: 'ana@example.com', after: 'ana.souza@example.com' } });

    // Rejected writes change nothing and leave no audit entry.
    expectError(await erp('PUT', '/contacts', { external_id: 'erp-1001', legacy_id: 42 }), 400, {
      error: 'bad_request',
      code: 'LEGACY_ID_NOT_ACCEPTED',
      message: 'legacy_id cannot be set through the external API',
      details: { field: 'legacy_id', reason: 'not accepted' },
    });

    const deleted = await erp('DELETE', `/contacts/${s.ana}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    audited(deleted, 'deleted', { deleted_at: { before: null, after: expect.stringMatching(TIMESTAMP) } });
    expectError(await erp('GET', `/contacts/${s.ana}`), 404, {
      error: 'not_found',
      code: 'CONTACT_NOT_FOUND',
      message: 'Contact not found',
    });
    const deletedAgain = await erp('DELETE', `/contacts/${s.ana}`);
    expect(deletedAgain.status).toBe(204);
    audited(deletedAgain, 'deleted', {});

    const restored = await erp('PUT', '/contacts', { external_id: 'erp-1001', name: 'Ana Souza' });
    expect(restored.status).toBe(201);
    expect(restored.body).toMatchObject({
      contact: { id: s.ana, name: 'Ana Souza' },
      action: 'restored',
      matched_by: 'external_id',
      warnings: [],
    });
    audited(restored, 'restored', { deleted_at: { before: expect.stringMatching(TIMESTAMP), after: null } });

    // A pet added in the CRM is CRM data only: the ERP's read never shows pets or the legacy id.
    const pet = await crm('POST', `/contacts/${s.ana}/pets`, s.agentCookie, { name: 'Paçoca', species: 'cão', breed: 'SRD' });
    expect(pet.status).toBe(201);
    expect(pet.body).toEqual({ id: expect.stringMatching(UUID), name: 'Paçoca', species: 'cão', breed: 'SRD', birth_date: null });
    const read = await erp('GET', `/contacts/${s.ana}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id: s.ana,
      external_id: 'erp-1001',
      document: '123.456.789-09',
      name: 'Ana Souza',
      phone: '+5511987654321',
      email: 'ana.souza@example.com',
      address: 'Rua das Flores, 10',
      source: 'balcão',
      profile_pic_url: null,
      created_at: created.body.contact.created_at,
      updated_at: expect.stringMatching(TIMESTAMP),
    });
  });

  it('5. a second contact cannot take the first one’s phone (409), in either mobile form', async () => {
    const bruno = await erp('PUT', '/contacts', { external_id: 'erp-2002', name: 'Bruno Lima', phone: '(21) 9876-5432' });
    expect(bruno.status).toBe(201);
    expect(bruno.body).toMatchObject({ contact: { phone: '+5521998765432' }, action: 'created', matched_by: null });
    s.bruno = bruno.body.contact.id;

    expectError(await erp('PUT', '/contacts', { external_id: 'erp-2002', phone: '+55 11 98765-4321' }), 409, {
      error: 'conflict',
      code: 'DUPLICATE_PHONE',
      message: 'Another contact of this workspace already has this phone',
      details: { field: 'phone', conflicting_contact_id: s.ana },
    });
    expect((await erp('GET', `/contacts/${s.bruno}`)).body).toMatchObject({ phone: '+5521998765432' });
  });

  it('6. under the flow policy, a CRM user’s name edit is kept and the ERP gets the warning', async () => {
    const edit = await crm('PATCH', `/contacts/${s.ana}`, s.agentCookie, { name: 'Ana Souza (CRM)' });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect(edit.body).toMatchObject({
      id: s.ana,
      name: 'Ana Souza (CRM)',
      legacy_id: null,
      name_edited_in_flow: { at: expect.stringMatching(TIMESTAMP), by_user_id: s.agentId },
      phone_edited_in_flow: null,
      pets: [{ name: 'Paçoca', species: 'cão' }],
    });

    const kept = await erp('PUT', '/contacts', { external_id: 'erp-1001', name: 'Ana S. (ERP)', address: 'Rua das Flores, 12' });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({
      contact: { id: s.ana, name: 'Ana Souza (CRM)', address: 'Rua das Flores, 12' },
      action: 'updated',
      matched_by: 'external_id',
      warnings: ['name_not_applied_user_edited_in_flow'],
    });
    audited(kept, 'updated', { address: { before: 'Rua das Flores, 10', after: 'Rua das Flores, 12' } }, [
      'name_not_applied_user_edited_in_flow',
    ]);
  });

  it('7. after the operator switches the policy to erp with the CLI, the ERP’s name wins', async () => {
    const update = { workspace: s.workspaceId, 'sync-policy': 'erp' };
    if (!pg) {
      // An embedded data directory has one owner: the CLI refuses, clearly, while the server holds it.
      const refused = await runCli(argv('workspace update', update), env);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/^error: The embedded database in .+ is in use by process \d+ \(a running vetflow server\?\)\. /);
      expect((await server!.stop()).code).toBe(0);
    }
    expect(await cli('workspace update', update)).toEqual({
      workspace_id: s.workspaceId,
      billing_status: 'active',
      contact_sync_policy: 'erp',
      external_id_rekeying: 'replace',
    });
    if (!pg) server = await startServer(env);

    // The sessions live in the database: the admin's cookie still works after a restart.
    expect((await crm('GET', '/settings', s.adminCookie)).body).toEqual({ contact_sync_policy: 'erp', external_id_rekeying: 'replace' });
    const wins = await erp('PUT', '/contacts', { external_id: 'erp-1001', name: 'Ana S. (ERP)' });
    expect(wins.status).toBe(200);
    expect(wins.body).toMatchObject({ contact: { id: s.ana, name: 'Ana S. (ERP)' }, action: 'updated', warnings: [] });
    audited(wins, 'updated', { name: { before: 'Ana Souza (CRM)', after: 'Ana S. (ERP)' } });
    // The ERP's value replaced the user's edit, so no edit is left to protect.
    expect((await crm('GET', `/contacts/${s.ana}`, s.agentCookie)).body).toMatchObject({ name: 'Ana S. (ERP)', name_edited_in_flow: null });
  });

  it('8. the admin reads the audit trail of every external write; an agent gets 403', async () => {
    expectError(await crm('GET', `/contacts/${s.ana}/audit-logs`, s.agentCookie), 403, {
      error: 'forbidden',
      code: 'INSUFFICIENT_PERMISSIONS',
      message: 'Only a workspace administrator can read audit logs',
      details: { required_role: 'administrator', current_role: 'agent' },
    });

    const trail = await crm('GET', `/contacts/${s.ana}/audit-logs?limit=100`, s.adminCookie);
    expect(trail.status, JSON.stringify(trail.body)).toBe(200);
    expect(trail.body.meta).toEqual({ total: s.trail.length, page: 1, limit: 100, total_pages: 1 });
    // Newest first; the rejected legacy_id write left nothing.
    expect(trail.body.data).toEqual(
      [...s.trail].reverse().map((entry) => ({
        id: expect.stringMatching(UUID),
        ...entry,
        api_key_id: s.keyId,
        api_key_prefix: s.token.slice(0, 12),
        ip: '127.0.0.1',
        created_at: expect.stringMatching(TIMESTAMP),
      })),
    );
    const restored = trail.body.data.find((entry: { action: string }) => entry.action === 'restored');
    const deleted = trail.body.data.findLast((entry: { action: string }) => entry.action === 'deleted');
    expect(restored.changes.deleted_at.before).toBe(deleted.changes.deleted_at.after);

    // The 409 on Bruno was not audited either: only his creation is.
    const bruno = await crm('GET', `/contacts/${s.bruno}/audit-logs`, s.adminCookie);
    expect(bruno.body.data.map((entry: { action: string }) => entry.action)).toEqual(['created']);
  });

  it('9. with a lead and a chat, a survey trigger succeeds once and then reports already_sent', async () => {
    const lead = await crm('POST', '/leads', s.agentCookie, { contact_id: s.ana, stage_id: s.stages.open });
    expect(lead.status).toBe(201);
    expect(lead.body).toEqual({ id: expect.stringMatching(UUID), contact_id: s.ana, stage_id: s.stages.open, status: 'active' });
    const chat = await crm('POST', '/chats', s.agentCookie, { contact_id: s.ana });
    expect(chat.status).toBe(201);
    expect(chat.body).toEqual({ id: expect.stringMatching(UUID), contact_id: s.ana, channel: 'whatsapp' });

    const first = await erp('POST', '/satisfaction-surveys', { external_id: 'erp-1001', reason: 'consulta_concluida' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ triggered: true, lead_id: lead.body.id, contact_id: s.ana, reason: 'consulta_concluida' });

    const again = await erp('POST', '/satisfaction-surveys', { phone: '11 8765-4321' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ triggered: false, lead_id: lead.body.id, contact_id: s.ana, reason: 'already_sent' });

    // The trigger moved the lead to the survey stage (an empty PATCH answers the lead as it is).
    expect((await crm('PATCH', `/leads/${lead.body.id}`, s.agentCookie, {})).body).toMatchObject({
      stage_id: s.stages.survey,
      status: 'active',
    });
  });
});
