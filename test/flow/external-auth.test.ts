import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CrmKeyAccess, crmKeyAccessOf, enforceExternalAuth } from '../../src/flow/external/external-auth.ts';
import { insertApiKey } from '../../src/flow/keys/keys.repo.ts';
import { CRM_SCOPES } from '../../src/flow/keys/scopes.ts';
import { generateToken, hashToken } from '../../src/flow/keys/token.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';

// The shared auth suite: every route under /flow/v1/external runs the same checks. Routes are read
// from the app's route registry, so a route added later joins the suite by being registered, and one
// registered without an auth policy fails it.

// A high limit: this file sends many bad tokens from one address on purpose (brute force has its own file).
const t = await createTestApp({ env: { ...CRM_TEST_ENV, AUTH_FAILURE_LIMIT: '100000' } });
const { app } = t;

// Stands in for the feature routes (contacts, surveys): a scoped route with a workspace in its path,
// registered the way they will be.
await app.register(
  async (scope) => {
    enforceExternalAuth(scope);
    scope.post(
      '/workspaces/:workspace_id/probe/:thing_id',
      {
        config: { access: { crmScope: 'contacts:read' } },
        schema: { params: z.object({ workspace_id: z.uuid(), thing_id: z.uuid() }), body: z.object({ n: z.int() }) },
      },
      async (request) => ({ n: (request.body as { n: number }).n }),
    );
  },
  { prefix: '/flow/v1/external' },
);
await app.ready();

const home = await makeWorkspace(t);
const other = await makeWorkspace(t);
const suspended = await makeWorkspace(t, { billing: 'suspended' });
const full = await makeKey(t, home.workspaceId, CRM_SCOPES);
const otherKey = await makeKey(t, other.workspaceId, CRM_SCOPES);
const suspendedKey = await makeKey(t, suspended.workspaceId, CRM_SCOPES);
const revoked = await makeKey(t, home.workspaceId, CRM_SCOPES);
await app.inject({ method: 'GET', url: '/flow/v1/external/me', headers: { authorization: `Bearer ${revoked.token}` } });
const { crmKeysService } = await import('../../src/flow/keys/keys.service.ts');
const { OPERATOR } = await import('../../src/flow/callers.ts');
await crmKeysService({ db: t.db.database.db }).revokeKey(OPERATOR, home.workspaceId, revoked.id);

// Keys stored under the hashes of a token with a bad checksum and of a malformed one: if the shape
// and checksum were not checked before the lookup, these would authenticate.
const badChecksum = `${full.token.slice(0, -1)}${full.token.at(-1) === 'A' ? 'B' : 'A'}`;
const malformed = 'crm_live_short';
for (const token of [badChecksum, malformed]) {
  await insertApiKey(
    {
      workspaceId: home.workspaceId,
      name: 'planted',
      tokenHash: hashToken(token),
      prefix: token.slice(0, 12),
      scopes: [...CRM_SCOPES],
      createdByUserId: null,
    },
    t.db.database.db,
  );
}

const routes = app.vetflow.routes.filter((route) => route.url.startsWith('/flow/v1/external/') && route.method !== 'HEAD');

function policyOf(route: (typeof routes)[number]): CrmKeyAccess | undefined {
  return crmKeyAccessOf(route.access);
}

function urlFor(route: { url: string }, workspaceId: string): string {
  return route.url.replace(':workspace_id', workspaceId).replace(/:[a-z_]+/g, '6f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10');
}

function call(route: { method: string; url: string }, authorization?: string, workspaceId = home.workspaceId) {
  return app.inject({
    method: route.method as 'GET',
    url: urlFor(route, workspaceId),
    headers: authorization === undefined ? {} : { authorization },
  });
}

const authOutcomes = [401, 403, 429];

describe('the external route registry', () => {
  it('covers the real routes and the probe', () => {
    const urls = routes.map((route) => `${route.method} ${route.url}`);
    expect(urls).toContain('GET /flow/v1/external/me');
    expect(urls).toContain('POST /flow/v1/external/workspaces/:workspace_id/probe/:thing_id');
  });

  it('knows an auth policy for every external route the router serves', () => {
    for (const route of routes) expect(policyOf(route), `${route.method} ${route.url}`).toBeDefined();
  });

  it('refuses to start with an external route that declares no policy', async () => {
    const bare = await createTestApp({ env: CRM_TEST_ENV });
    const starting = (async () => {
      await bare.app.register(
        async (scope) => {
          enforceExternalAuth(scope);
          scope.get('/unguarded', async () => ({ ok: true }));
        },
        { prefix: '/flow/v1/external' },
      );
      await bare.app.ready();
    })();
    await expect(starting).rejects.toThrow(/needs config\.access = \{ crmScope \}/);
  });
});

describe.each(routes)('$method $url', (route) => {
  const policy = policyOf(route)!;

  it('authenticates a valid key, whatever the case of the scheme name', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const response = await call(route, `${scheme} ${full.token}`);
      expect(authOutcomes, `${scheme}: ${response.body}`).not.toContain(response.statusCode);
    }
  });

  it('answers 401 without an Authorization header', async () => {
    const response = await call(route);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'unauthorized', code: 'INVALID_API_KEY' });
  });

  it('answers 401 for another scheme', async () => {
    for (const header of [`Basic ${full.token}`, `Token ${full.token}`, full.token, `Bearer`, `Bearer ${full.token} extra`]) {
      expect((await call(route, header)).statusCode, header).toBe(401);
    }
  });

  it('answers 401 for a malformed token', async () => {
    for (const token of ['crm_live_', malformed, `crm_test_${full.token.slice(9)}`, `${full.token}x`, full.token.slice(0, -1)]) {
      expect((await call(route, `Bearer ${token}`)).statusCode, token).toBe(401);
    }
  });

  it('answers 401 for a token whose checksum does not match, without looking it up', async () => {
    const response = await call(route, `Bearer ${badChecksum}`);
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toMatch(/malformed/i);
  });

  it('answers 401 for a well-formed token that was never issued', async () => {
    const response = await call(route, `Bearer ${generateToken()}`);
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('INVALID_API_KEY');
  });

  it('answers 401 for a revoked key', async () => {
    const response = await call(route, `Bearer ${revoked.token}`);
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('INVALID_API_KEY');
  });

  it.runIf(policy.crmScope)('answers 403 with required_scope when the key lacks the scope', async () => {
    const lacking = await makeKey(
      t,
      home.workspaceId,
      CRM_SCOPES.filter((scope) => scope !== policy.crmScope),
    );
    const response = await call(route, `Bearer ${lacking.token}`);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { required_scope: policy.crmScope } });
  });

  it.runIf(route.url.includes(':workspace_id'))("answers 403 for another workspace's path", async () => {
    const response = await call(route, `Bearer ${otherKey.token}`, home.workspaceId);
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('WORKSPACE_MISMATCH');
  });

  it(`answers ${policy.allowSuspendedBilling ? 'normally' : '403 BILLING_INACTIVE'} when billing is suspended`, async () => {
    const response = await call(route, `Bearer ${suspendedKey.token}`, suspended.workspaceId);
    if (policy.allowSuspendedBilling) {
      expect(authOutcomes).not.toContain(response.statusCode);
    } else {
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('BILLING_INACTIVE');
    }
  });
});

describe('GET /flow/v1/external/me', () => {
  it('names the workspace and the key', async () => {
    const response = await app.inject({ method: 'GET', url: '/flow/v1/external/me', headers: { authorization: `Bearer ${full.token}` } });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      workspace_id: home.workspaceId,
      workspace_name: expect.any(String),
      key: { name: expect.any(String), prefix: full.token.slice(0, 12), scopes: CRM_SCOPES },
    });
    expect(body.key.prefix).toMatch(/^crm_live_...$/);
  });

  it('answers while billing is suspended', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/flow/v1/external/me',
      headers: { authorization: `Bearer ${suspendedKey.token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().workspace_id).toBe(suspended.workspaceId);
  });

  it('decides authentication before the body is read', async () => {
    // An invalid body on a guarded route is 401 without credentials, 422 only once authenticated.
    const route = { method: 'POST', url: '/flow/v1/external/workspaces/:workspace_id/probe/:thing_id' };
    const anonymous = await app.inject({ method: 'POST', url: urlFor(route, home.workspaceId), payload: { n: 'x' } });
    expect(anonymous.statusCode).toBe(401);
    const authenticated = await app.inject({
      method: 'POST',
      url: urlFor(route, home.workspaceId),
      payload: { n: 'x' },
      headers: { authorization: `Bearer ${full.token}` },
    });
    expect(authenticated.statusCode).toBe(422);
  });
});
