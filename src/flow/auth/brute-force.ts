import type { Config } from '../../platform/config.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
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

/** Counts a failed authentication, then throws `error`, or 429 when this failure crosses the limit. */
export async function failAuthentication(ip: string, policy: BruteForcePolicy, error: AppError, db: Db): Promise<never> {
  const failures = await insertFailure(ip, policy.windowSeconds, db);
  if (failures > policy.limit) {
    await insertBlock(ip, policy.blockSeconds, db);
    throw tooManyFailures(policy.blockSeconds);
  }
  throw error;
}
