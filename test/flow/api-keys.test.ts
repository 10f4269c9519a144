import { describe, expect, it } from 'vitest';
import { createSecondApp, createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeUser, makeWorkspace } from '../helpers/crm.ts';

const t = await createTestApp({ env: CRM_TEST_ENV });
const { app } = t;
const second = await createSecondApp(t);

const home = await makeWorkspace(t);
const other = await makeWorkspace(t);
const admin = await loginCookie(app, home.admin.email, home.admin.password);
const agentUser = await makeUser(t, home.workspaceId, 'agent');
const agent = await loginCookie(app, agentUser.email, agentUser.password);
const otherAdmin = await loginCookie(app, other.admin.email, other.admin.password);

const keysUrl = (workspaceId = home.workspaceId) => `/flow/v1/api/workspaces/${workspaceId}/api-keys`;
const issue = (cookie: string | undefined, payload: unknown, workspaceId = home.workspaceId) =>
  app.inject({ method: 'POST', url: keysUrl(workspaceId), payload: payload as object, headers: cookie ? { cookie } : {} });
const list = (cookie: string, workspaceId = home.workspaceId) =>
  app.inject({ method: 'GET', url: keysUrl(workspaceId), headers: { cookie } });
const me = (target: typeof app, token: string) =>
  target.inject({ method: 'GET', url: '/flow/v1/external/me', headers: { authorization: `Bearer ${token}` } });

describe('POST .../api-keys', () => {
  it('issues a key to an administrator of the workspace, with the token shown once', async () => {
    const response = await issue(admin, { name: 'ERP production', scopes: ['contacts:read', 'contacts:write'] });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      name: 'ERP production',
      token: expect.stringMatching(/^crm_live_[0-9A-Za-z]{38}$/),
      prefix: body.token.slice(0, 12),
      scopes: ['contacts:read', 'contacts:write'],
      workspace_id: home.workspaceId,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect((await me(app, body.token)).statusCode).toBe(200);

    const listed = await list(admin);
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(body.token);
    expect(listed.body).not.toContain(body.token.slice(12));
    const entry = listed.json().data.find((key: { id: string }) => key.id === body.id);
    expect(entry).toEqual({
      id: body.id,
      name: 'ERP production',
      prefix: body.prefix,
      scopes: ['contacts:read', 'contacts:write'],
      workspace_id: home.workspaceId,
      created_at: body.created_at,
      last_used_at: expect.stringMatching(/Z$/),
    });
    expect(listed.json().meta.total).toBe(listed.json().data.length);
  });

  it('refuses an unknown scope with 400', async () => {
    const response = await issue(admin, { name: 'x', scopes: ['contacts:read', 'contacts:everything'] });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'INVALID_SCOPE', details: { unknown_scopes: ['contacts:everything'] } });
  });

  it('refuses an agent with 403', async () => {
    const response = await issue(agent, { name: 'x', scopes: ['contacts:read'] });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await list(agent)).statusCode).toBe(403);
  });

  it("refuses another workspace's administrator with 403", async () => {
    const response = await issue(otherAdmin, { name: 'x', scopes: ['contacts:read'] });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('WORKSPACE_MISMATCH');
    expect((await list(otherAdmin)).statusCode).toBe(403);
  });

  it('refuses a caller without a session with 401', async () => {
    expect((await issue(undefined, { name: 'x', scopes: ['contacts:read'] })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: keysUrl() })).statusCode).toBe(401);
  });
});

describe('DELETE .../api-keys/{id}', () => {
  it('revokes at once, on every app process over the database', async () => {
    const { id, token } = (await issue(admin, { name: 'to revoke', scopes: ['contacts:read'] })).json();
    expect((await me(app, token)).statusCode).toBe(200);
    expect((await me(second.app, token)).statusCode).toBe(200);

    const revoked = await app.inject({ method: 'DELETE', url: `${keysUrl()}/${id}`, headers: { cookie: admin } });
    expect(revoked.statusCode).toBe(204);
    expect((await me(app, token)).statusCode).toBe(401);
    // The other app (its own database handle, as another process) trusts its cached lookup for up to
    // 2 s (CRM_KEY_CACHE_TTL_MS); the contract allows "within seconds".
    await eventually(async () => (await me(second.app, token)).statusCode === 401, 3_000);
    const listed = (await list(admin)).json();
    expect(listed.data.map((key: { id: string }) => key.id)).not.toContain(id);
  });

  it("is 404 for another workspace's key, and leaves it working", async () => {
    const foreign = (await issue(otherAdmin, { name: 'theirs', scopes: ['contacts:read'] }, other.workspaceId)).json();
    const response = await app.inject({ method: 'DELETE', url: `${keysUrl()}/${foreign.id}`, headers: { cookie: admin } });
    expect(response.statusCode).toBe(404);
    expect((await me(app, foreign.token)).statusCode).toBe(200);
  });

  it('is 403 for an agent', async () => {
    const { id } = (await issue(admin, { name: 'kept', scopes: ['contacts:read'] })).json();
    const response = await app.inject({ method: 'DELETE', url: `${keysUrl()}/${id}`, headers: { cookie: agent } });
    expect(response.statusCode).toBe(403);
  });
});
