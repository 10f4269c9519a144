import { addressGroup } from '../../platform/brute-force/address-group.ts';
import { bruteForcePolicy, countAttempt } from '../../platform/brute-force/brute-force.ts';
import type { Config } from '../../platform/config.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';

// Each login check is a scrypt of 128 MiB on libuv's small shared thread pool, so guesses are
// refused before that work, not after: first by the number of logins of the same address or
// account already being checked in this process (more answer 429 at once, without a query), then
// by the brute-force guard, which counts the attempt before the password is looked at.

export type LoginAttemptsConfig = Pick<
  Config,
  | 'AUTH_FAILURE_LIMIT'
  | 'AUTH_FAILURE_WINDOW_SECONDS'
  | 'AUTH_BLOCK_SECONDS'
  | 'AUTH_ACCOUNT_BACKOFF_MAX_SECONDS'
  | 'AUTH_LOGIN_CONCURRENCY'
>;

export interface LoginAttempts {
  /**
   * Runs `verify` (the password check) for a login by `ip` for `email` when the guard admits it,
   * and answers what `verify` found: a result counts as success, undefined as a failed attempt.
   * Throws 429 when the attempt is refused; `verify` then never runs.
   */
  check<T>(ip: string, email: string, verify: () => Promise<T | undefined>): Promise<T | undefined>;
}

export function loginAttempts(db: Db, config: LoginAttemptsConfig): LoginAttempts {
  const policy = bruteForcePolicy(config);
  const inFlight = new Map<string, number>();

  function enter(keys: string[]): boolean {
    if (keys.some((key) => (inFlight.get(key) ?? 0) >= config.AUTH_LOGIN_CONCURRENCY)) return false;
    for (const key of keys) inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    return true;
  }
  function leave(keys: string[]): void {
    for (const key of keys) {
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left > 0) inFlight.set(key, left);
      else inFlight.delete(key);
    }
  }

  return {
    async check(ip, email, verify) {
      const keys = [`ip:${addressGroup(ip)}`, `account:${email}`];
      if (!enter(keys)) {
        throw new AppError(
          'TOO_MANY_CONCURRENT_LOGINS',
          'Too many logins from this address or for this account are being checked; retry in a second',
          { retry_after_seconds: 1 },
          { 'retry-after': '1' },
        );
      }
      try {
        const attempt = await countAttempt({ ip, account: email }, policy, db);
        const result = await verify();
        if (result !== undefined) await attempt.succeeded();
        return result;
      } finally {
        leave(keys);
      }
    },
  };
}
