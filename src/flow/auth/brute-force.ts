import type { Config } from '../../platform/config.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { ipBlocks } from '../../platform/metrics/security.ts';
import { blockedSeconds, insertBlock, insertFailure } from './brute-force.repo.ts';

// The brute-force guard shared by bearer authentication and login: more than `limit` failures from
// one IP within the window block that IP for `blockSeconds`. Counters live in Postgres so every app
// process sees the same figures. The IP is Fastify's `request.ip`, which honours X-Forwarded-For
// only from proxies TRUST_PROXY names, so a client cannot reset its counter by forging that header.

export interface BruteForcePolicy {
  readonly limit: number;
  readonly windowSeconds: number;
  readonly blockSeconds: number;
}

export function bruteForcePolicy(config: Pick<Config, 'AUTH_FAILURE_LIMIT' | 'AUTH_FAILURE_WINDOW_SECONDS' | 'AUTH_BLOCK_SECONDS'>) {
  return {
    limit: config.AUTH_FAILURE_LIMIT,
    windowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS,
    blockSeconds: config.AUTH_BLOCK_SECONDS,
  } satisfies BruteForcePolicy;
}

function tooManyFailures(retryAfterSeconds: number): AppError {
  return new AppError(
    'TOO_MANY_FAILED_AUTHENTICATIONS',
    'Too many failed authentications from this address; try again later',
    { retry_after_seconds: retryAfterSeconds },
    { 'retry-after': String(retryAfterSeconds) },
  );
}

/** Refuses a blocked IP before any credential is looked at. */
export async function assertNotBlocked(ip: string, db: Db): Promise<void> {
  const seconds = await blockedSeconds(ip, db);
  if (seconds > 0) throw tooManyFailures(seconds);
}

// Bearer authentication runs on every external request: an IP found not blocked is not asked about
// again for this long. A block set by this process applies at once (failAuthentication forgets the
// IP); one set by another process reaches requests with valid credentials within this delay (a
// failed attempt always consults the database, so guessing stays blocked everywhere at once).
const NOT_BLOCKED_TTL_MS = 2_000;
const notBlockedUntil = new WeakMap<Db, Map<string, number>>();

/** assertNotBlocked for the hot path of bearer authentication (see NOT_BLOCKED_TTL_MS). */
export async function assertNotBlockedCached(ip: string, db: Db): Promise<void> {
  const known = notBlockedUntil.get(db) ?? new Map<string, number>();
  notBlockedUntil.set(db, known);
  const now = Date.now();
  if ((known.get(ip) ?? 0) > now) return;
  await assertNotBlocked(ip, db);
  if (known.size >= 10_000) known.clear();
  known.set(ip, now + NOT_BLOCKED_TTL_MS);
}

/** Counts a failed authentication, then throws `error`, or 429 when this failure crosses the limit. */
export async function failAuthentication(ip: string, policy: BruteForcePolicy, error: AppError, db: Db): Promise<never> {
  // The caller may have trusted a cached "not blocked": a guess must never slip through a block.
  notBlockedUntil.get(db)?.delete(ip);
  await assertNotBlocked(ip, db);
  const failures = await insertFailure(ip, policy.windowSeconds, db);
  if (failures > policy.limit) {
    await insertBlock(ip, policy.blockSeconds, db);
    ipBlocks.inc();
    throw tooManyFailures(policy.blockSeconds);
  }
  throw error;
}
