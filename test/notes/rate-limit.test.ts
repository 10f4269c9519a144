import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { eq } from '../../src/platform/db/drizzle.ts';
import { rateLimitCounters } from '../../src/platform/db/schema/index.ts';
import { createTestApp, testEnv } from '../helpers/app.ts';
import { awayFromMinuteBoundary, createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote } from '../helpers/uploads.ts';

const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);

const listKeys = (target: typeof app, key: string) =>
  target.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: { 'x-api-key': key } });
const createKey = (target: typeof app, key: string) =>
  target.inject({ method: 'POST', url: '/notes/v1/api-keys', headers: { 'x-api-key': key }, payload: { name: 'x', permissions: [] } });

describe('per-key rate limits by role', () => {
  it('gives a viewer 200 requests a minute, then 429 with the documented headers and body', async () => {
    await awayFromMinuteBoundary(20);
    // A viewer is refused (403) by these routes, but every authenticated request still counts.
    let last = await listKeys(app, clinic.viewer);
    expect(last.headers['x-ratelimit-limit-minute']).toBe('200');
    expect(last.headers['x-ratelimit-remaining-minute']).toBe('199');
    const reset = Number(last.headers['x-ratelimit-reset-minute']);
    const now = Date.now() / 1000;
    expect(reset).toBeGreaterThan(now);
    expect(reset).toBeLessThanOrEqual(Math.ceil(now / 60) * 60 + 1);
    for (let i = 2; i <= 200; i++) last = await listKeys(app, clinic.viewer);
    expect(last.statusCode).toBe(403);
    expect(last.headers['x-ratelimit-remaining-minute']).toBe('0');

    const limited = await listKeys(app, clinic.viewer);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited.headers['x-ratelimit-limit-minute']).toBe('200');
    expect(limited.headers['x-ratelimit-remaining-minute']).toBe('0');
    expect(limited.headers).not.toHaveProperty('x-ratelimit-limit');
    const body = limited.json();
    expect(body).toMatchObject({ error: 'too_many_requests', code: 'RATE_LIMIT_EXCEEDED', details: { limit: 200, remaining: 0 } });
    expect(body.details.reset_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // Status polling is not limited: it keeps answering for the limited viewer.
    const noteId = await uploadNote(app, clinic.editor, { name: 'Poll' });
    for (let i = 0; i < 3; i++) {
      const status = await app.inject({
        method: 'GET',
        url: `/notes/v1/notes/${noteId}/status`,
        headers: { 'x-api-key': clinic.viewer },
      });
      expect(status.statusCode).toBe(200);
    }
    expect((await listKeys(app, clinic.viewer)).statusCode).toBe(429);

    // Limits are per key: the editor of the same clinic is untouched.
    const editor = await listKeys(app, clinic.editor);
    expect(editor.headers['x-ratelimit-limit-minute']).toBe('500');
    expect(editor.headers['x-ratelimit-remaining-minute']).toBe('498');
  });

  it('does not count requests that fail authentication', async () => {
    const response = await listKeys(app, `vnk_${'f'.repeat(32)}`);
    expect(response.statusCode).toBe(401);
    expect(response.headers).not.toHaveProperty('x-ratelimit-limit-minute');
  });

  it('applies configured limits', async () => {
    await awayFromMinuteBoundary(10);
    const { app: strict, db: strictDb } = await createTestApp({ env: { RATE_LIMIT_ADMINISTRATOR_PER_MINUTE: '3' } });
    const keys = await createClinicWithKeys(strictDb.database);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await listKeys(strict, keys.admin)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('holds across two app instances sharing the database', async () => {
    await withTwoInstances('6', 'Two instances', async (instances, fresh) => {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await createKey(instances[i % 2]!, fresh.editor)).statusCode);
      expect(statuses.filter((status) => status !== 429)).toHaveLength(6);
      expect(statuses.slice(6).every((status) => status === 429)).toBe(true);
    });
  });

  it('counts a concurrent burst exactly: every admitted request sees its own remaining count', async () => {
    // Each instance counts the requests that arrive while its counter statement is in flight in one
    // statement; the limit must still be exact and no two requests may get the same count.
    await withTwoInstances('10', 'Burst', async (instances, fresh) => {
      const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => listKeys(instances[i % 2]!, fresh.editor)));
      const admitted = responses.filter((response) => response.statusCode !== 429);
      expect(admitted).toHaveLength(10);
      const remaining = admitted.map((response) => Number(response.headers['x-ratelimit-remaining-minute'])).sort((a, b) => a - b);
      expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // Refused requests count too (as before batching): the shared counter saw all 30.
      expect(await counterOf(fresh.editorId)).toBe(30);
    });
  });

  it('leases 1 % of the limit per counter statement, and two instances together still never exceed it', async () => {
    // Editor limit 500: each statement adds 5 counts, which the instance hands to the next requests.
    await withTwoInstances('500', 'Leases', async (instances, fresh) => {
      const remaining: number[] = [];
      for (let i = 0; i < 7; i++)
        remaining.push(Number((await listKeys(instances[0], fresh.editor)).headers['x-ratelimit-remaining-minute']));
      // One process alone sees exact counts; two statements leased 10.
      expect(remaining).toEqual([499, 498, 497, 496, 495, 494, 493]);
      expect(await counterOf(fresh.editorId)).toBe(10);

      // Both instances until the limit: never more than 500 admitted; fewer only by the counts an
      // instance leased and had not handed out when the other reached the limit (at most 7 each:
      // up to 2 left of one lease, and the next 5, asked for early).
      let admitted = 7;
      for (let i = 0; i < 520; i++) if ((await listKeys(instances[i % 2]!, fresh.editor)).statusCode !== 429) admitted++;
      expect(admitted).toBeLessThanOrEqual(500);
      expect(admitted).toBeGreaterThanOrEqual(500 - 14);
    });
  });
});

/** A key's shared counter (each test stays inside one minute window: awayFromMinuteBoundary). */
async function counterOf(keyId: string): Promise<number | undefined> {
  const [counter] = await db.database.db
    .select({ count: rateLimitCounters.count })
    .from(rateLimitCounters)
    .where(eq(rateLimitCounters.key, `notes:${keyId}`));
  return counter?.count;
}

/** Two app instances on this file's database, an editor limit of `editorLimit`, and a fresh clinic. */
async function withTwoInstances(
  editorLimit: string,
  clinicName: string,
  use: (instances: [typeof app, typeof app], clinic: Awaited<ReturnType<typeof createClinicWithKeys>>) => Promise<void>,
) {
  await awayFromMinuteBoundary(10);
  const env = testEnv({ LOG_LEVEL: 'silent', RATE_LIMIT_EDITOR_PER_MINUTE: editorLimit });
  const clinic = await createClinicWithKeys(db.database, clinicName);
  const first = await buildApp(loadConfig(env), { database: db.database });
  const second = await buildApp(loadConfig(env), { database: db.database });
  try {
    await use([first, second], clinic);
  } finally {
    await first.close();
    await second.close();
  }
}

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisReachable = await import('ioredis')
  .then(async ({ Redis }) => {
    const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await probe.connect();
      await probe.ping();
      return true;
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  })
  .catch(() => false);

describe.runIf(redisReachable)('with REDIS_URL', () => {
  it('keeps the counters in Redis, shared by two app instances', async () => {
    await awayFromMinuteBoundary(10);
    const env = testEnv({ LOG_LEVEL: 'silent', REDIS_URL: redisUrl, RATE_LIMIT_VIEWER_PER_MINUTE: '4' });
    const keys = await createClinicWithKeys(db.database, 'Redis clinic');
    const first = await buildApp(loadConfig(env), { database: db.database });
    const second = await buildApp(loadConfig(env), { database: db.database });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await listKeys(i % 2 ? second : first, keys.viewer)).statusCode);
      expect(statuses).toEqual([403, 403, 403, 403, 429, 429, 429, 429]);
      const counted = await db.database.db.execute(
        (await import('../../src/platform/db/drizzle.ts'))
          .sql`select count(*)::int as n from rate_limit_counters where key = ${`notes:${keys.viewerId}`}`,
      );
      expect((counted as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
