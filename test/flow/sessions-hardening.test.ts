import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeUser, makeWorkspace } from '../helpers/crm.ts';

// CRM sessions that a stolen laptop, a tossed cookie or a departed employee cannot keep alive:
// the `__Host-` cookie over https, the idle timeout, "log out everywhere" and disabled users.

const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_SESSION_IDLE_MINUTES: '30', AUTH_FAILURE_LIMIT: '1000' } });
const https = await createTestApp({ env: { ...CRM_TEST_ENV, PUBLIC_BASE_URL: 'https://crm.vetflow.test' } });
const proxied = await createTestApp({ env: { ...CRM_TEST_ENV, TRUST_PROXY: 'true' } });
const { app } = t;
const home = await makeWorkspace(t);
const agent = await makeUser(t, home.workspaceId, 'agent');

const login = (target: typeof app, email: string, password: string, headers: Record<string, string> = {}) =>
  target.inject({ method: 'POST', url: '/flow/v1/api/auth/login', payload: { email, password }, headers });
const whoAmI = (cookie: string, target = app, headers: Record<string, string> = {}) =>
  target.inject({ method: 'GET', url: '/flow/v1/api/auth/session', headers: { cookie, ...headers } });
const setCookies = (response: { headers: Record<string, unknown> }) => [response.headers['set-cookie'] ?? []].flat().map(String);
const attributesOf = (cookie: string) => cookie.split('; ');

describe('the session cookie over https', () => {
  it('is a __Host- cookie: Secure, Path=/, no Domain, HttpOnly, SameSite=Strict', async () => {
    const ws = await makeWorkspace(https);
    const response = await login(https.app, ws.admin.email, ws.admin.password);
    expect(response.statusCode).toBe(200);
    const [session, legacy] = setCookies(response);
    const [pair, ...attributes] = attributesOf(session ?? '');
    expect(pair).toMatch(/^__Host-vetflow_session=[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'Secure', 'HttpOnly', 'SameSite=Strict']));
    expect(attributes.some((attribute) => /^domain=/i.test(attribute))).toBe(false);
    // The unprefixed cookie of earlier versions is dropped.
    expect(legacy).toMatch(/^vetflow_session=; Path=\/flow\/v1; Max-Age=0/);

    const token = pair?.split('=')[1];
    expect((await whoAmI(`__Host-vetflow_session=${token}`, https.app)).statusCode).toBe(200);
    // A cookie without the prefix (planted by a sibling subdomain or over http) is not a session here.
    expect((await whoAmI(`vetflow_session=${token}`, https.app)).statusCode).toBe(401);

    const logout = await https.app.inject({
      method: 'POST',
      url: '/flow/v1/api/auth/logout',
      headers: { cookie: `__Host-vetflow_session=${token}` },
    });
    expect(setCookies(logout)[0]).toMatch(/^__Host-vetflow_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict; Secure$/);
    expect((await whoAmI(`__Host-vetflow_session=${token}`, https.app)).statusCode).toBe(401);
  });

  it('is a __Host- cookie behind a trusted proxy that says the client came over https', async () => {
    const ws = await makeWorkspace(proxied);
    const forwarded = { 'x-forwarded-proto': 'https' };
    const response = await login(proxied.app, ws.admin.email, ws.admin.password, forwarded);
    const [session] = setCookies(response);
    expect(session).toMatch(/^__Host-vetflow_session=[A-Za-z0-9_-]{43}; Path=\/; .*Secure/);
    const cookie = session?.split(';')[0] ?? '';
    expect((await whoAmI(cookie, proxied.app, forwarded)).statusCode).toBe(200);
  });

  it('stays the plain development cookie when X-Forwarded-Proto comes from an untrusted peer', async () => {
    const response = await login(app, agent.email, agent.password, { 'x-forwarded-proto': 'https' });
    const [session] = setCookies(response);
    expect(session).toMatch(/^vetflow_session=[A-Za-z0-9_-]{43}; Path=\/flow\/v1; /);
    expect(attributesOf(session ?? '')).not.toContain('Secure');
  });
});

describe('the idle timeout (CRM_SESSION_IDLE_MINUTES)', () => {
  const sessionOf = async (cookie: string) => {
    const result = await t.db.database.db.execute(
      sql`select s.id, s.last_seen_at from crm_sessions s where s.token_hash = encode(sha256(convert_to(${cookie.split('=')[1]}, 'UTF8')), 'hex')`,
    );
    return (result as unknown as { rows: { id: string; last_seen_at: string | Date }[] }).rows[0];
  };
  const idleFor = async (cookie: string, minutes: number) => {
    const session = await sessionOf(cookie);
    await t.db.database.db.execute(
      sql`update crm_sessions set last_seen_at = now() - make_interval(mins => ${minutes}::int) where id = ${session?.id}`,
    );
  };

  it('ends a session unused for longer than the timeout, though its TTL has hours left', async () => {
    const cookie = await loginCookie(app, agent.email, agent.password);
    expect((await whoAmI(cookie)).statusCode).toBe(200);
    await idleFor(cookie, 31);
    const response = await whoAmI(cookie);
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('UNAUTHORIZED');
  });

  it('keeps a session in use alive: each use (at most once a minute) starts the timeout again', async () => {
    const cookie = await loginCookie(app, agent.email, agent.password);
    await idleFor(cookie, 20);
    expect((await whoAmI(cookie)).statusCode).toBe(200);
    const seen = new Date((await sessionOf(cookie))?.last_seen_at ?? 0).getTime();
    expect(Date.now() - seen).toBeLessThan(60_000);
    await idleFor(cookie, 29);
    expect((await whoAmI(cookie)).statusCode).toBe(200);
  });
});

describe('POST /flow/v1/api/auth/logout-everywhere', () => {
  it("ends every session of the user, on every device, and no one else's", async () => {
    const here = await loginCookie(app, agent.email, agent.password);
    const there = await loginCookie(app, agent.email, agent.password);
    const someoneElse = await loginCookie(app, home.admin.email, home.admin.password);
    const response = await app.inject({ method: 'POST', url: '/flow/v1/api/auth/logout-everywhere', headers: { cookie: here } });
    expect(response.statusCode).toBe(204);
    expect(setCookies(response)[0]).toMatch(/^vetflow_session=; .*Max-Age=0/);
    expect((await whoAmI(here)).statusCode).toBe(401);
    expect((await whoAmI(there)).statusCode).toBe(401);
    expect((await whoAmI(someoneElse)).statusCode).toBe(200);
  });

  it('needs a session', async () => {
    const response = await app.inject({ method: 'POST', url: '/flow/v1/api/auth/logout-everywhere' });
    expect(response.statusCode).toBe(401);
  });
});

describe('an administrator disables a user', () => {
  const users = (cookie: string) =>
    app.inject({ method: 'GET', url: `/flow/v1/api/workspaces/${home.workspaceId}/users`, headers: { cookie } });
  const change = (cookie: string, userId: string, disabled: boolean, workspaceId = home.workspaceId) =>
    app.inject({
      method: 'PATCH',
      url: `/flow/v1/api/workspaces/${workspaceId}/users/${userId}`,
      headers: { cookie },
      payload: { disabled },
    });

  it('ends their sessions at once and refuses their logins until re-enabled', async () => {
    const leaving = await makeUser(t, home.workspaceId, 'agent');
    const admin = await loginCookie(app, home.admin.email, home.admin.password);
    const laptop = await loginCookie(app, leaving.email, leaving.password);
    const phone = await loginCookie(app, leaving.email, leaving.password);

    const disabled = await change(admin, leaving.id, true);
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json()).toMatchObject({ id: leaving.id, email: leaving.email, role: 'agent' });
    expect(disabled.json().disabled_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await whoAmI(laptop)).statusCode).toBe(401);
    expect((await whoAmI(phone)).statusCode).toBe(401);

    const refused = await login(app, leaving.email, leaving.password);
    expect(refused.statusCode).toBe(401);
    const wrongPassword = await login(app, leaving.email, `${leaving.password}x`);
    expect(refused.json().code).toBe('INVALID_CREDENTIALS');
    expect(refused.json().message).toBe(wrongPassword.json().message);

    const listed = (await users(admin)).json();
    expect(listed.data.find((user: { id: string }) => user.id === leaving.id)).toMatchObject({ disabled_at: disabled.json().disabled_at });
    expect(listed.meta.total).toBe(listed.data.length);

    const enabled = await change(admin, leaving.id, false);
    expect(enabled.json().disabled_at).toBeNull();
    expect((await login(app, leaving.email, leaving.password)).statusCode).toBe(200);
  });

  it('refuses to disable oneself, an unknown user or another workspace’s user', async () => {
    const admin = await loginCookie(app, home.admin.email, home.admin.password);
    const self = await change(admin, home.admin.id, true);
    expect(self.statusCode).toBe(400);
    expect(self.json().code).toBe('INVALID_REQUEST');
    const unknown = await change(admin, '6f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10', true);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('USER_NOT_FOUND');
    const elsewhere = await makeWorkspace(t);
    const foreign = await change(admin, elsewhere.admin.id, true);
    expect(foreign.statusCode).toBe(404);
    expect((await login(app, elsewhere.admin.email, elsewhere.admin.password)).statusCode).toBe(200);
  });

  it('is for administrators only', async () => {
    const agentCookie = await loginCookie(app, agent.email, agent.password);
    const response = await change(agentCookie, home.admin.id, true);
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('INSUFFICIENT_PERMISSIONS');
  });
});
