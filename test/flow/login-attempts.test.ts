import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AppInstance } from '../../src/app.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { passwordVerifications } from '../../src/platform/metrics/security.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeWorkspace } from '../helpers/crm.ts';

// Logins are counted before the password is checked (scrypt), per address and per account, with a
// backoff per account and a bound on logins checked at once. Default limit: 20 in 10 minutes.

// The database counter alone: no concurrency bound to speak of, no backoff.
const counted = await createTestApp({ env: { ...CRM_TEST_ENV, AUTH_LOGIN_CONCURRENCY: '1000', AUTH_ACCOUNT_BACKOFF_MAX_SECONDS: '0' } });
// The defaults: 4 logins per address and per account at once, backoff up to 60 s.
const defaults = await createTestApp({ env: CRM_TEST_ENV });

function login(app: AppInstance, ip: string, email: string, password: string) {
  return app.inject({ method: 'POST', url: '/flow/v1/api/auth/login', remoteAddress: ip, payload: { email, password } });
}
/** How many passwords were checked with scrypt so far (the metric, counted in verifyPassword). */
async function verifications(): Promise<number> {
  return (await passwordVerifications.get()).values[0]?.value ?? 0;
}
const codes = (responses: { statusCode: number; body: string }[]) =>
  responses.map((response) => (response.statusCode === 200 ? 200 : `${response.statusCode} ${JSON.parse(response.body).code}`));
function tally(values: (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Moves every attempt of the guard `seconds` into the past, as if that time had gone by. */
async function timePasses(t: TestApp, seconds: number) {
  await t.db.database.db.execute(sql`update auth_failures set failed_at = failed_at - make_interval(secs => ${seconds}::int)`);
}

describe('the login attempt counter', () => {
  it('checks no more than the limit of 200 concurrent guesses from one address, the right password among them', async () => {
    const { admin } = await makeWorkspace(counted);
    const before = await verifications();
    const started = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => login(counted.app, '203.0.113.1', admin.email, i === 100 ? admin.password : `guess-${i}`)),
    );
    const elapsed = performance.now() - started;
    const checked = (await verifications()) - before;
    const outcomes = tally(codes(responses));
    const succeeded = outcomes[200] ?? 0;
    console.info(`200 concurrent logins: ${checked} scrypt checks, ${JSON.stringify(outcomes)}, ${elapsed.toFixed(0)} ms`);
    expect(outcomes['401 INVALID_CREDENTIALS'] ?? 0).toBeLessThanOrEqual(20);
    // A success counts against nobody (an office behind one address logs in all day), so the right
    // password, when it was among the admitted, is the one check beyond the failures.
    expect(checked).toBeLessThanOrEqual(20 + succeeded);
    expect(checked).toBe((outcomes['401 INVALID_CREDENTIALS'] ?? 0) + succeeded);
    expect(outcomes['429 TOO_MANY_FAILED_AUTHENTICATIONS']).toBeGreaterThanOrEqual(180 - succeeded);
  });

  it('checks no more than the limit of 200 concurrent guesses for one account from 200 addresses', async () => {
    const { admin } = await makeWorkspace(counted);
    const before = await verifications();
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => login(counted.app, `203.0.114.${i + 1}`, admin.email, `guess-${i}`)),
    );
    const checked = (await verifications()) - before;
    const outcomes = tally(codes(responses));
    console.info(`200 concurrent logins for one account: ${checked} scrypt checks, ${JSON.stringify(outcomes)}`);
    // Every attempt counts those committed before it, so when all arrive at once each may see more
    // than the limit and none is checked: the bound errs on the side of refusing.
    expect(checked).toBeLessThanOrEqual(20);
    expect(outcomes['401 INVALID_CREDENTIALS'] ?? 0).toBe(checked);
    // The account is refused with the right password too, from an address that never failed.
    const refused = await login(counted.app, '203.0.115.1', admin.email, admin.password);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'TOO_MANY_FAILED_AUTHENTICATIONS', message: expect.stringContaining('account') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // ... and no other account is.
    const other = await makeWorkspace(counted);
    expect((await login(counted.app, '203.0.115.1', other.admin.email, other.admin.password)).statusCode).toBe(200);
  });

  it('counts unknown accounts like known ones, so a refusal tells nothing about which exist', async () => {
    const ghost = 'nobody-at-all@clinic.example';
    for (let i = 0; i < 20; i++) expect((await login(counted.app, `203.0.116.${i + 1}`, ghost, 'x'.repeat(12))).statusCode).toBe(401);
    const refused = await login(counted.app, '203.0.116.200', ghost, 'x'.repeat(12));
    expect(refused.statusCode).toBe(429);
    // The table holds a hash of the account, never the address typed.
    const stored = (await counted.db.database.db.execute(
      sql`select count(*)::int as n from auth_failures where account = ${createHash('sha256').update(ghost).digest('hex')}`,
    )) as unknown as { rows: { n: number }[] };
    expect(stored.rows[0]?.n).toBeGreaterThanOrEqual(20);
  });

  it('does not count successful logins: 30 in a row from one address all succeed', async () => {
    const { admin } = await makeWorkspace(counted);
    for (let i = 0; i < 30; i++)
      expect((await login(counted.app, '203.0.113.30', admin.email, admin.password)).statusCode, `login ${i + 1}`).toBe(200);
  });
});

describe('logins checked at once', () => {
  it('answers logins beyond 4 at once from one address with 429 before any check', async () => {
    await makeWorkspace(defaults);
    const before = await verifications();
    // Two hundred different accounts: neither the account limit nor the backoff is in play.
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => login(defaults.app, '203.0.113.50', `someone-${i}@clinic.example`, `guess-${i}`)),
    );
    const checked = (await verifications()) - before;
    const outcomes = tally(codes(responses));
    console.info(`200 concurrent logins, concurrency 4: ${checked} scrypt checks, ${JSON.stringify(outcomes)}`);
    expect(outcomes['429 TOO_MANY_CONCURRENT_LOGINS']).toBeGreaterThan(0);
    expect(checked).toBe(outcomes['401 INVALID_CREDENTIALS']);
    expect(checked).toBeLessThanOrEqual(20);
    const refusal = responses.find((response) => response.json().code === 'TOO_MANY_CONCURRENT_LOGINS')!;
    expect(refusal.headers['retry-after']).toBe('1');
  });

  it('lets logins one after another through', async () => {
    const { admin } = await makeWorkspace(defaults);
    for (let i = 0; i < 5; i++) expect((await login(defaults.app, '203.0.113.51', admin.email, admin.password)).statusCode).toBe(200);
  });
});

describe('the per-account backoff', () => {
  // Waits are simulated by moving attempts into the past; real time only ever adds to a gap, so the
  // refusals below hold however slowly the requests run (the gaps they need are 16 s and more).
  it('lets 5 attempts through, then asks for 1, 2, 4 ... seconds (at most 60) between attempts of one account', async () => {
    const { admin } = await makeWorkspace(defaults);
    const attempt = (ip: string, password = 'wrong password') => login(defaults.app, ip, admin.email, password);
    for (let i = 0; i < 5; i++) expect((await attempt(`203.0.117.${i + 1}`)).statusCode, `attempt ${i + 1}`).toBe(401);
    for (let i = 5; i < 9; i++) {
      await timePasses(defaults, 100);
      expect((await attempt(`203.0.117.${i + 1}`)).statusCode, `attempt ${i + 1}`).toBe(401);
    }
    // The 10th, at once and from a fresh address, with the right password: it must wait 16 s.
    const early = await attempt('203.0.117.100', admin.password);
    expect(early.statusCode).toBe(429);
    expect(early.json().message).toContain('account');
    // That refused attempt counts too: the 11th must keep 32 s from it.
    expect(early.headers['retry-after']).toBe('32');
    await timePasses(defaults, 20);
    const stillEarly = await attempt('203.0.117.100', admin.password);
    expect(stillEarly.statusCode).toBe(429);
    expect(stillEarly.headers['retry-after']).toBe('60');
    await timePasses(defaults, 61);
    expect((await attempt('203.0.117.100', admin.password)).statusCode).toBe(200);
  });
});
