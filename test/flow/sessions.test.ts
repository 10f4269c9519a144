import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeUser, makeWorkspace } from '../helpers/crm.ts';

const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_SESSION_TTL_MINUTES: '90' } });
const https = await createTestApp({ env: { ...CRM_TEST_ENV, PUBLIC_BASE_URL: 'https://crm.vetflow.test' } });
const { app } = t;
const workspace = await makeWorkspace(t);
const agent = await makeUser(t, workspace.workspaceId, 'agent');

const login = (email: string, password: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/flow/v1/api/auth/login', payload: { email, password }, headers });
const whoAmI = (cookie?: string) => app.inject({ method: 'GET', url: '/flow/v1/api/auth/session', headers: cookie ? { cookie } : {} });

describe('POST /flow/v1/api/auth/login', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie with an expiry, not Secure over http', async () => {
    const response = await login(agent.email, agent.password);
    expect(response.statusCode).toBe(200);
    const cookie = String(response.headers['set-cookie']);
    const [pair, ...attributes] = cookie.split('; ');
    expect(pair).toMatch(/^vetflow_session=[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/flow/v1']));
    expect(attributes).not.toContain('Secure');
    const maxAge = Number(attributes.find((attribute) => attribute.startsWith('Max-Age='))?.slice(8));
    expect(maxAge).toBeGreaterThan(90 * 60 - 10);
    expect(maxAge).toBeLessThanOrEqual(90 * 60);
    expect(response.json()).toEqual({
      user: { id: agent.id, email: agent.email, role: 'agent' },
      workspace: { id: workspace.workspaceId, name: expect.any(String) },
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
  });

  it('marks the cookie Secure when the service is served over https', async () => {
    const ws = await makeWorkspace(https);
    const response = await https.app.inject({
      method: 'POST',
      url: '/flow/v1/api/auth/login',
      payload: { email: ws.admin.email, password: ws.admin.password },
    });
    expect(response.statusCode).toBe(200);
    expect(String(response.headers['set-cookie']).split('; ')).toContain('Secure');
  });

  it('accepts the email in any case', async () => {
    expect((await login(agent.email.toUpperCase(), agent.password)).statusCode).toBe(200);
  });

  it('gives a wrong password and an unknown email byte-identical 401 bodies', async () => {
    const headers = { 'x-request-id': 'login-probe-1' };
    const wrongPassword = await login(agent.email, `${agent.password}x`, headers);
    const unknownEmail = await login(`nobody-${agent.email}`, agent.password, headers);
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknownEmail.statusCode).toBe(401);
    expect(wrongPassword.body).toBe(unknownEmail.body);
    expect(wrongPassword.json()).toMatchObject({ error: 'unauthorized', code: 'INVALID_CREDENTIALS' });
    expect(wrongPassword.headers['set-cookie']).toBeUndefined();
  });
});

describe('GET /flow/v1/api/auth/session', () => {
  it('says who is logged in', async () => {
    const cookie = await loginCookie(app, agent.email, agent.password);
    const response = await whoAmI(cookie);
    expect(response.statusCode).toBe(200);
    expect(response.json().user).toEqual({ id: agent.id, email: agent.email, role: 'agent' });
  });

  it('answers 401 without a cookie, or with a forged one', async () => {
    expect((await whoAmI()).statusCode).toBe(401);
    const forged = await whoAmI('vetflow_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toMatchObject({ error: 'unauthorized', code: 'UNAUTHORIZED' });
  });

  it('answers 401 once the session has expired', async () => {
    const cookie = await loginCookie(app, agent.email, agent.password);
    expect((await whoAmI(cookie)).statusCode).toBe(200);
    await t.db.database.db.execute(
      sql`update crm_sessions set expires_at = now() - interval '1 second' where expires_at > now() + interval '1 minute'`,
    );
    expect((await whoAmI(cookie)).statusCode).toBe(401);
  });
});

describe('POST /flow/v1/api/auth/logout', () => {
  it('ends the session: the same cookie no longer works', async () => {
    const cookie = await loginCookie(app, agent.email, agent.password);
    const other = await loginCookie(app, agent.email, agent.password);
    const response = await app.inject({ method: 'POST', url: '/flow/v1/api/auth/logout', headers: { cookie } });
    expect(response.statusCode).toBe(204);
    expect(String(response.headers['set-cookie'])).toMatch(/^vetflow_session=; .*Max-Age=0/);
    expect((await whoAmI(cookie)).statusCode).toBe(401);
    // Only that session: the user's other login lives on.
    expect((await whoAmI(other)).statusCode).toBe(200);
  });
});
