import { afterEach, describe, expect, it, vi } from 'vitest';
import { CrmKeyCache, crmKeyCache } from '../../src/flow/keys/key-cache.ts';
import { generateToken, hashToken } from '../../src/flow/keys/token.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';

// Well-formed random CRM tokens (anyone can compute the checksum) must not push a valid key out of
// the bearer cache, however many arrive and whether or not their address is blocked.
const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_RATE_LIMIT_PER_MINUTE: '1000000' } });
const { app } = t;
const db = t.db.database.db;

// More than the old cache's 10,000 entries, at which it cleared everything.
const FLOOD = Number(process.env.FLOOD ?? 10_050);

const me = (token: string, ip: string) =>
  app.inject({ method: 'GET', url: '/flow/v1/external/me', remoteAddress: ip, headers: { authorization: `Bearer ${token}` } });

afterEach(() => {
  vi.useRealTimers();
});

describe('the CRM key cache under a flood of unknown tokens', () => {
  it('keeps serving a warm valid key from the cache after more than 10,000 distinct unknown tokens from a blocked address', async () => {
    // The clock stands still, so the valid key's entry cannot expire while the flood runs: only an
    // eviction can take it out.
    vi.useFakeTimers({ toFake: ['Date'] });
    const workspace = await makeWorkspace(t);
    const key = await makeKey(t, workspace.workspaceId);
    expect((await me(key.token, '203.0.113.1')).statusCode).toBe(200);
    const cache = crmKeyCache(db);
    const lookupsBefore = cache.lookups;

    // Over HTTP until the address is blocked and a while after: at most 20 failures are answered
    // 401 (fewer when they arrive at once), then the address is blocked (429).
    const attacker = '198.51.100.77';
    const statuses = new Map<number, number>();
    const OVER_HTTP = 200;
    for (let sent = 0; sent < OVER_HTTP; sent += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => me(generateToken(), attacker)));
      for (const answer of answers) statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
    }
    const refused = statuses.get(401) ?? 0;
    expect(refused).toBeLessThanOrEqual(20);
    expect(statuses.get(429)).toBe(OVER_HTTP - refused);
    // The rest of the flood straight at the cache the requests use (what a blocked address's
    // requests reach), past the old 10,000 entries at which it cleared everything.
    for (let sent = OVER_HTTP; sent < FLOOD; sent += 50) {
      await Promise.all(Array.from({ length: 50 }, () => cache.find(hashToken(generateToken()))));
    }
    // Unknown tokens are not remembered: the cache holds the one valid key.
    expect(cache.size).toBe(1);

    // Revoked behind the cache's back (no announcement): only a cached entry still answers 200.
    await db.execute(sql`update crm_api_keys set revoked_at = now() where id = ${key.id}`);
    const lookupsAfterFlood = cache.lookups;
    expect((await me(key.token, '203.0.113.1')).statusCode).toBe(200);
    expect(cache.lookups).toBe(lookupsAfterFlood);
    expect(lookupsAfterFlood - lookupsBefore).toBe(FLOOD);
  }, 600_000);

  it('evicts the least recently used valid key when full, never all of them', async () => {
    const workspace = await makeWorkspace(t);
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => makeKey(t, workspace.workspaceId)));
    const cache = new CrmKeyCache(db, 2);
    await cache.find(hashToken(a!.token));
    await cache.find(hashToken(b!.token));
    await cache.find(hashToken(a!.token)); // a is now the most recently used
    expect(await cache.find(hashToken(generateToken()))).toBeNull();
    expect(cache.size).toBe(2);
    await cache.find(hashToken(c!.token)); // evicts b
    expect(cache.size).toBe(2);
    const lookups = cache.lookups;
    await cache.find(hashToken(a!.token));
    await cache.find(hashToken(c!.token));
    expect(cache.lookups).toBe(lookups);
    await cache.find(hashToken(b!.token));
    expect(cache.lookups).toBe(lookups + 1);
  });
});
