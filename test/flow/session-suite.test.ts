import type { FastifyContextConfig } from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { crmSessionRoleOf, enforceSessionAccess } from '../../src/flow/auth/require-session.ts';
import { sessionsService } from '../../src/flow/auth/sessions.service.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeUser, makeWorkspace } from '../helpers/crm.ts';

// The shared session suite: every CRM-side route (/flow/v1/api/*), as registered, against every way a
// session can be missing or wrong, against another workspace's users and against an agent where it
// declares the administrator role. A route added later joins by being registered, like the Notes
// suite (test/notes/auth-suite.test.ts) and the external one (external-auth.test.ts).

const PREFIX = '/flow/v1/api/';
// A high limit: this file sends bad cookies and logins on purpose (brute force has its own file).
const t = await createTestApp({ env: { ...CRM_TEST_ENV, AUTH_FAILURE_LIMIT: '100000' } });
const { app } = t;
await app.ready();

const home = await makeWorkspace(t);
const other = await makeWorkspace(t);
const agent = await makeUser(t, home.workspaceId, 'agent');
const adminCookie = await loginCookie(app, home.admin.email, home.admin.password);
const agentCookie = await loginCookie(app, agent.email, agent.password);
const otherAdminCookie = await loginCookie(app, other.admin.email, other.admin.password);
const loggedOut = await loginCookie(app, home.admin.email, home.admin.password);
await app.inject({ method: 'POST', url: `${PREFIX}auth/logout`, headers: { cookie: loggedOut } });

const routes = app.vetflow.routes.filter((route) => route.url.startsWith(PREFIX) && route.method !== 'HEAD');
const sessionRoutes = routes.filter((route) => route.access !== 'public');
const label = (route: { method: string; url: string }) => `${route.method} ${route.url}`;
const SAMPLE_ID = '6f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10';
const urlFor = (route: { url: string }, workspaceId = home.workspaceId) =>
  route.url.replace(':workspace_id', workspaceId).replace(/:[a-z_]+/g, SAMPLE_ID);

// Bodies that pass validation, so a request reaches the service's membership and role checks.
const validBodies: Record<string, object> = {
  'POST /flow/v1/api/workspaces/:workspace_id/api-keys': { name: 'suite', scopes: ['contacts:read'] },
  'PATCH /flow/v1/api/workspaces/:workspace_id/contacts/:contact_id': { name: 'Taken over' },
  'POST /flow/v1/api/workspaces/:workspace_id/contacts/:contact_id/pets': { name: 'Rex', species: 'canine' },
  'POST /flow/v1/api/workspaces/:workspace_id/pipeline-stages': { name: 'Suite', position: 1 },
  'POST /flow/v1/api/workspaces/:workspace_id/leads': { contact_id: SAMPLE_ID, stage_id: SAMPLE_ID },
  'PATCH /flow/v1/api/workspaces/:workspace_id/leads/:lead_id': { status: 'finished' },
  'POST /flow/v1/api/workspaces/:workspace_id/chats': { contact_id: SAMPLE_ID },
  'PUT /flow/v1/api/workspaces/:workspace_id/survey-config': { enabled: false, survey_stage_id: null },
  'PATCH /flow/v1/api/workspaces/:workspace_id/settings': { contact_sync_policy: 'erp' },
  'PATCH /flow/v1/api/workspaces/:workspace_id/users/:user_id': { disabled: false },
};

// Routes that end every session of their caller are let through as users of their own, so the
// suite's shared cookies stay alive for the routes after them.
const endsSessions = new Set(['POST /flow/v1/api/auth/logout-everywhere']);
const spare = { agent: await makeUser(t, home.workspaceId, 'agent'), administrator: await makeUser(t, home.workspaceId, 'administrator') };
const ownCookie = async (route: { method: string; url: string }, shared: string, role: 'agent' | 'administrator') =>
  endsSessions.has(label(route)) ? loginCookie(app, spare[role].email, spare[role].password) : shared;

function call(
  route: { method: string; url: string },
  cookie: string | undefined,
  options: { workspaceId?: string; payload?: unknown } = {},
) {
  const payload = options.payload ?? validBodies[label(route)];
  return app.inject({
    method: route.method as 'GET',
    url: urlFor(route, options.workspaceId),
    headers: cookie === undefined ? {} : { cookie },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

describe('the CRM-side route registry', () => {
  it('covers the real routes, each with a session role or public', () => {
    expect(routes.map(label)).toEqual(
      expect.arrayContaining([
        'POST /flow/v1/api/auth/login',
        'GET /flow/v1/api/auth/session',
        'GET /flow/v1/api/workspaces/:workspace_id/api-keys',
      ]),
    );
    for (const route of routes) expect(route.access === 'public' || crmSessionRoleOf(route.access) !== undefined, label(route)).toBe(true);
    expect(routes.filter((route) => route.access === 'public').map(label)).toEqual([
      'POST /flow/v1/api/auth/login',
      'POST /flow/v1/api/auth/logout',
    ]);
  });

  it('has a valid body for every route that takes one', async () => {
    const document = (await app.inject({ method: 'GET', url: '/flow/v1/openapi.json' })).json();
    for (const route of sessionRoutes) {
      const path = route.url.slice('/flow/v1'.length).replace(/:(\w+)/g, '{$1}');
      const operation = document.paths[path]?.[route.method.toLowerCase()];
      expect(operation, label(route)).toBeDefined();
      if (operation.requestBody) expect(validBodies[label(route)], label(route)).toBeDefined();
    }
  });

  it('refuses to start with a CRM-side route that declares no access, or a key scope', async () => {
    const declarations: FastifyContextConfig[] = [{}, { access: { crmScope: 'contacts:read' } }];
    for (const config of declarations) {
      const bare = await createTestApp({ env: CRM_TEST_ENV });
      const starting = (async () => {
        await bare.app.register(
          async (scope) => {
            enforceSessionAccess(scope, sessionsService({ db: bare.db.database.db, config: bare.config }));
            scope.get('/api/unguarded', { config }, async () => ({ ok: true }));
          },
          { prefix: '/flow/v1' },
        );
        await bare.app.ready();
      })();
      await expect(starting, JSON.stringify(config)).rejects.toThrow(
        /GET \/flow\/v1\/api\/unguarded: a CRM-side route needs config\.access/,
      );
    }
  });

  it('refuses to start with a route whose declared access no guard enforces (outside its tree)', async () => {
    const bare = await createTestApp({ env: CRM_TEST_ENV });
    bare.app.get('/flow/v1/api/stray', { config: { access: { crmSessionRole: 'member' } } }, async () => ({ ok: true }));
    await expect(bare.app.ready()).rejects.toThrow(/No access guard enforces .*GET \/flow\/v1\/api\/stray/);
  });

  it('refuses to start with any route that declares no access at all', async () => {
    const bare = await createTestApp({ env: CRM_TEST_ENV });
    bare.app.get('/anywhere', async () => ({ ok: true }));
    await expect(bare.app.ready()).rejects.toThrow(/Every route needs config\.access.*GET \/anywhere/);
  });
});

describe.each(sessionRoutes)('$method $url', (route) => {
  const role = crmSessionRoleOf(route.access);

  it('answers 401 UNAUTHORIZED without a session, before validating the body', async () => {
    for (const payload of [undefined, { unexpected: 'field' }]) {
      const response = await call(route, undefined, { payload });
      expect(response.statusCode, response.body).toBe(401);
      expect(response.json()).toMatchObject({ error: 'unauthorized', code: 'UNAUTHORIZED' });
    }
  });

  it('answers 401 for a forged, malformed or logged-out cookie', async () => {
    for (const cookie of [`vetflow_session=${'A'.repeat(43)}`, 'vetflow_session=', 'vetflow_session=%zz', 'other=1', loggedOut]) {
      const response = await call(route, cookie, { payload: { unexpected: 'field' } });
      expect(response.statusCode, cookie).toBe(401);
      expect(response.json().code, cookie).toBe('UNAUTHORIZED');
    }
  });

  it.runIf(route.url.includes(':workspace_id'))("refuses another workspace's administrator with 403 WORKSPACE_MISMATCH", async () => {
    const response = await call(route, otherAdminCookie);
    expect(response.statusCode, response.body).toBe(403);
    expect(response.json().code).toBe('WORKSPACE_MISMATCH');
  });

  it.runIf(role === 'administrator')('refuses an agent of the workspace with 403 INSUFFICIENT_PERMISSIONS', async () => {
    const response = await call(route, agentCookie);
    expect(response.statusCode, response.body).toBe(403);
    expect(response.json()).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      details: { required_role: 'administrator', current_role: 'agent' },
    });
  });

  it.runIf(role === 'member')('lets an agent of the workspace through its access checks', async () => {
    const response = await call(route, await ownCookie(route, agentCookie, 'agent'));
    expect([401, 403], `${response.statusCode} ${response.body}`).not.toContain(response.statusCode);
  });

  it('lets an administrator of the workspace through its access checks', async () => {
    const response = await call(route, await ownCookie(route, adminCookie, 'administrator'));
    expect([401, 403], `${response.statusCode} ${response.body}`).not.toContain(response.statusCode);
  });
});

describe('the session guard', () => {
  it('is the first onRequest hook of a session route, so it runs before the body is parsed', async () => {
    // A body that is not even JSON: without a session 401, with one 400 MALFORMED_JSON.
    const url = `${PREFIX}workspaces/${home.workspaceId}/pipeline-stages`;
    const headers = { 'content-type': 'application/json' };
    const anonymous = await app.inject({ method: 'POST', url, headers, payload: '{not json' });
    expect(anonymous.statusCode).toBe(401);
    const authenticated = await app.inject({ method: 'POST', url, headers: { ...headers, cookie: adminCookie }, payload: '{not json' });
    expect(authenticated.statusCode).toBe(400);
    expect(authenticated.json().code).toBe('MALFORMED_JSON');
    expect(z.string().parse(authenticated.json().request_id)).toBeTruthy();
  });
});
