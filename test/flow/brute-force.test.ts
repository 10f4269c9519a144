import { describe, expect, it } from 'vitest';
import type { AppInstance } from '../../src/app.ts';
import { generateToken } from '../../src/flow/keys/token.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createSecondApp, createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';

// Default figures (more than 20 failures in 10 minutes → 429 for 10 minutes), TRUST_PROXY=false.
const t = await createTestApp({ env: CRM_TEST_ENV });
const { app } = t;
const second = await createSecondApp(t);
const workspace = await makeWorkspace(t);
const key = await makeKey(t, workspace.workspaceId);

function bearer(target: AppInstance, ip: string, token = generateToken(), headers: Record<string, string> = {}) {
  return target.inject({
    method: 'GET',
    url: '/flow/v1/external/me',
    remoteAddress: ip,
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
}
function login(target: AppInstance, ip: string, password: string) {
  return target.inject({
    method: 'POST',
    url: '/flow/v1/api/auth/login',
    remoteAddress: ip,
    payload: { email: workspace.admin.email, password },
  });
}
async function failTimes(times: number, fail: (i: number) => Promise<{ statusCode: number }>) {
  for (let i = 0; i < times; i++) expect((await fail(i)).statusCode, `failure ${i + 1}`).toBe(401);
}

describe('the brute-force guard', () => {
  it('answers the 21st failure from one IP with 429, then refuses that IP even with good credentials', async () => {
    const ip = '198.51.100.1';
    await failTimes(20, () => bearer(app, ip));
    const blocked = await bearer(app, ip);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ error: 'too_many_requests', code: 'TOO_MANY_FAILED_AUTHENTICATIONS' });
    expect(Number(blocked.headers['retry-after'])).toBe(600);
    expect((await bearer(app, ip, key.token)).statusCode).toBe(429);
    expect((await login(app, ip, workspace.admin.password)).statusCode).toBe(429);
  });

  it('leaves other IPs alone', async () => {
    const ip = '198.51.100.2';
    await failTimes(20, () => bearer(app, ip));
    expect((await bearer(app, ip)).statusCode).toBe(429);
    expect((await bearer(app, '198.51.100.3', key.token)).statusCode).toBe(200);
    expect((await bearer(app, '198.51.100.3')).statusCode).toBe(401);
    expect((await login(app, '198.51.100.3', workspace.admin.password)).statusCode).toBe(200);
  });

  it('counts login failures and bearer failures together', async () => {
    const ip = '198.51.100.4';
    await failTimes(10, () => login(app, ip, 'wrong password'));
    await failTimes(10, () => bearer(app, ip));
    const blocked = await login(app, ip, 'wrong password');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('TOO_MANY_FAILED_AUTHENTICATIONS');
  });

  it('is not reset by a spoofed X-Forwarded-For when no proxy is trusted', async () => {
    const ip = '198.51.100.5';
    await failTimes(20, (i) => bearer(app, ip, generateToken(), { 'x-forwarded-for': `10.9.8.${i}` }));
    expect((await bearer(app, ip, generateToken(), { 'x-forwarded-for': '10.9.9.9' })).statusCode).toBe(429);
    expect((await bearer(app, ip, key.token, { 'x-forwarded-for': '203.0.113.77' })).statusCode).toBe(429);
  });

  it('is shared by every app process over the database', async () => {
    const ip = '198.51.100.6';
    await failTimes(20, (i) => bearer(i % 2 === 0 ? app : second.app, ip));
    expect((await bearer(second.app, ip)).statusCode).toBe(429);
    expect((await bearer(second.app, ip, key.token)).statusCode).toBe(429);
    // The other process refuses the next guess at once (a failure always consults the database),
    // then good credentials too. (Good credentials alone may pass there for up to 2 s after the
    // block: the time it trusts its last "not blocked" answer.)
    expect((await bearer(app, ip)).statusCode).toBe(429);
    expect((await bearer(app, ip, key.token)).statusCode).toBe(429);
  });

  it('forgets failures older than the window', async () => {
    const ip = '198.51.100.7';
    await failTimes(20, () => bearer(app, ip));
    await t.db.database.db.execute(sql`update auth_failures set failed_at = now() - interval '601 seconds' where ip = ${ip}`);
    await failTimes(1, () => bearer(app, ip));
    // ... and deletes them on the way, so the table holds the window only.
    const stale = (await t.db.database.db.execute(
      sql`select count(*)::int as n from auth_failures where failed_at < now() - interval '600 seconds'`,
    )) as unknown as { rows: { n: number }[] };
    expect(stale.rows[0]?.n).toBe(0);
    await failTimes(19, () => bearer(app, ip));
    expect((await bearer(app, ip)).statusCode).toBe(429);
  });

  it('lifts the block when it expires, with a fresh count', async () => {
    const ip = '198.51.100.8';
    await failTimes(20, () => bearer(app, ip));
    expect((await bearer(app, ip)).statusCode).toBe(429);
    await t.db.database.db.execute(sql`update auth_blocks set blocked_until = now() - interval '1 second' where ip = ${ip}`);
    expect((await bearer(app, ip, key.token)).statusCode).toBe(200);
    await failTimes(20, () => bearer(app, ip));
    expect((await bearer(app, ip)).statusCode).toBe(429);
  });
});

describe('behind a trusted proxy', () => {
  it('counts the forwarded client address, which the proxy vouches for', async () => {
    const proxied = await createTestApp({ env: { ...CRM_TEST_ENV, TRUST_PROXY: '127.0.0.1', AUTH_FAILURE_LIMIT: '3' } });
    const ws = await makeWorkspace(proxied);
    const good = await makeKey(proxied, ws.workspaceId);
    const via = (client: string, token?: string) => bearer(proxied.app, '127.0.0.1', token, { 'x-forwarded-for': client });
    await failTimes(3, () => via('203.0.113.10'));
    expect((await via('203.0.113.10')).statusCode).toBe(429);
    expect((await via('203.0.113.11', good.token)).statusCode).toBe(200);
  });
});
