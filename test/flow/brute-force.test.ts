import { describe, expect, it } from 'vitest';
import type { AppInstance } from '../../src/app.ts';
import { generateToken } from '../../src/flow/keys/token.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createSecondApp, createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';

// Default figures (more than 20 failures in 10 minutes → 429 for 10 minutes), TRUST_PROXY=false.
// Logins per account, their backoff and concurrency: login-attempts.test.ts.
const t = await createTestApp({ env: CRM_TEST_ENV });
const { app } = t;
const second = await createSecondApp(t);
const workspace = await makeWorkspace(t);
const key = await makeKey(t, workspace.workspaceId);
const clinic = await createClinicWithKeys(t.db.database);

function bearer(target: AppInstance, ip: string, token = generateToken(), headers: Record<string, string> = {}) {
  return target.inject({
    method: 'GET',
    url: '/flow/v1/external/me',
    remoteAddress: ip,
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
}
// A well-formed Notes key nobody was given.
const unknownNotesKey = () => `vnk_${[...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
function notes(target: AppInstance, ip: string, apiKey = unknownNotesKey()) {
  return target.inject({ method: 'GET', url: '/notes/v1/notes', remoteAddress: ip, headers: { 'x-api-key': apiKey } });
}
// Each failed login names another (unknown) account, so only the address limit is in play here.
let logins = 0;
function login(target: AppInstance, ip: string, password: string, email = `nobody-${++logins}@clinic.example`) {
  return target.inject({ method: 'POST', url: '/flow/v1/api/auth/login', remoteAddress: ip, payload: { email, password } });
}
async function failTimes(times: number, fail: (i: number) => Promise<{ statusCode: number }>) {
  for (let i = 0; i < times; i++) expect((await fail(i)).statusCode, `failure ${i + 1}`).toBe(401);
}
/** Moves every attempt and block of the guard `seconds` into the past, as if that time had gone by. */
async function timePasses(seconds: number) {
  const db = t.db.database.db;
  await db.execute(sql`update auth_failures set failed_at = failed_at - make_interval(secs => ${seconds}::int)`);
  await db.execute(sql`update auth_blocks set blocked_until = blocked_until - make_interval(secs => ${seconds}::int)`);
}

describe('the brute-force guard', () => {
  it('answers the 21st failure from one IP with 429, then refuses that IP every wrong credential and every login', async () => {
    const ip = '198.51.100.1';
    await failTimes(20, () => bearer(app, ip));
    const blocked = await bearer(app, ip);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ error: 'too_many_requests', code: 'TOO_MANY_FAILED_AUTHENTICATIONS' });
    expect(Number(blocked.headers['retry-after'])).toBe(600);
    expect((await notes(app, ip)).statusCode).toBe(429);
    // Logins keep counting per address: the right password after the limit is still refused.
    expect((await login(app, ip, workspace.admin.password, workspace.admin.email)).statusCode).toBe(429);
  });

  it('lets a valid bearer token and a valid Notes key through while their address is blocked', async () => {
    const ip = '198.51.100.11';
    await failTimes(20, () => bearer(app, ip));
    expect((await bearer(app, ip)).statusCode).toBe(429);
    const me = await bearer(app, ip, key.token);
    expect(me.statusCode).toBe(200);
    expect(me.json().workspace_id).toBe(workspace.workspaceId);
    expect((await notes(app, ip, clinic.admin)).statusCode).toBe(200);
    // ... in every process: the block is in the database, the key is checked before it.
    expect((await bearer(second.app, ip, key.token)).statusCode).toBe(200);
    expect((await notes(second.app, ip, clinic.viewer)).statusCode).toBe(200);
    // A revoked or expired Notes key is a wrong credential: it meets the block.
    expect((await notes(app, ip, clinic.revoked)).statusCode).toBe(429);
    expect((await notes(app, ip, clinic.expired)).statusCode).toBe(429);
  });

  it('leaves other IPs alone', async () => {
    const ip = '198.51.100.2';
    await failTimes(20, () => bearer(app, ip));
    expect((await bearer(app, ip)).statusCode).toBe(429);
    expect((await bearer(app, '198.51.100.3', key.token)).statusCode).toBe(200);
    expect((await bearer(app, '198.51.100.3')).statusCode).toBe(401);
    expect((await login(app, '198.51.100.3', workspace.admin.password, workspace.admin.email)).statusCode).toBe(200);
  });

  it('counts login failures, bearer failures and Notes key failures together', async () => {
    const ip = '198.51.100.4';
    await failTimes(7, () => login(app, ip, 'wrong password'));
    await failTimes(7, () => bearer(app, ip));
    await failTimes(6, () => notes(app, ip));
    const blocked = await login(app, ip, 'wrong password');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('TOO_MANY_FAILED_AUTHENTICATIONS');
  });

  it('counts failed Notes keys per address and blocks the 21st, as on the CRM side', async () => {
    const ip = '198.51.100.12';
    const wrong = [clinic.revoked, clinic.expired, clinic.disabled, 'vnk_0000', ...Array.from({ length: 16 }, unknownNotesKey)];
    await failTimes(20, (i) => notes(app, ip, wrong[i]));
    const blocked = await notes(app, ip);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ code: 'TOO_MANY_FAILED_AUTHENTICATIONS', details: { retry_after_seconds: 600 } });
    expect((await bearer(app, ip)).statusCode).toBe(429);
    // No key at all is not a guess: 401, not counted, whatever the address.
    const anonymous = await app.inject({ method: 'GET', url: '/notes/v1/notes', remoteAddress: '198.51.100.13' });
    expect(anonymous.statusCode).toBe(401);
    const rows = (await t.db.database.db.execute(
      sql`select count(*)::int as n from auth_failures where ip = '198.51.100.13'`,
    )) as unknown as { rows: { n: number }[] };
    expect(rows.rows[0]?.n).toBe(0);
  });

  it('counts an IPv6 /64 as one address, and an IPv4-mapped address as the IPv4 one', async () => {
    await failTimes(20, (i) => bearer(app, `2001:db8:1:2::${(i + 1).toString(16)}`));
    expect((await bearer(app, '2001:db8:1:2:ffff:ffff:ffff:fffe')).statusCode).toBe(429);
    expect((await notes(app, '2001:0db8:0001:0002:0:0:0:99')).statusCode).toBe(429);
    expect((await bearer(app, '2001:db8:1:3::1')).statusCode).toBe(401);
    expect((await bearer(app, '2001:db8:1:2:ffff:ffff:ffff:fffe', key.token)).statusCode).toBe(200);

    await failTimes(10, () => bearer(app, '198.51.100.14'));
    await failTimes(10, () => bearer(app, '::ffff:198.51.100.14'));
    expect((await bearer(app, '198.51.100.14')).statusCode).toBe(429);
  });

  it('is not reset by a spoofed X-Forwarded-For when no proxy is trusted, and warns once about the header', async () => {
    const ip = '198.51.100.5';
    await failTimes(20, (i) => bearer(app, ip, generateToken(), { 'x-forwarded-for': `10.9.8.${i}` }));
    expect((await bearer(app, ip, generateToken(), { 'x-forwarded-for': '10.9.9.9' })).statusCode).toBe(429);
    expect((await notes(app, ip, unknownNotesKey())).statusCode).toBe(429);
    expect((await bearer(app, ip, key.token, { 'x-forwarded-for': '203.0.113.77' })).statusCode).toBe(200);
    const warnings = t.logs.filter((line) => line.includes('X-Forwarded-For but TRUST_PROXY=false'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, peer: ip });
  });

  it('is shared by every app process over the database', async () => {
    const ip = '198.51.100.6';
    await failTimes(20, (i) => bearer(i % 2 === 0 ? app : second.app, ip));
    expect((await bearer(second.app, ip)).statusCode).toBe(429);
    expect((await bearer(app, ip)).statusCode).toBe(429);
    expect((await notes(second.app, ip)).statusCode).toBe(429);
    expect((await login(second.app, ip, workspace.admin.password, workspace.admin.email)).statusCode).toBe(429);
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
    await timePasses(601);
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
    expect((await via('203.0.113.11')).statusCode).toBe(401);
    expect((await via('203.0.113.10', good.token)).statusCode).toBe(200);
    // The proxy is trusted: no warning about its header.
    expect(proxied.logs.some((line) => line.includes('TRUST_PROXY=false'))).toBe(false);
  });
});
