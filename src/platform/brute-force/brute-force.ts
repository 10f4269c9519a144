import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { ipBlocks } from '../metrics/security.ts';
import { addressGroup } from './address-group.ts';
import { deleteAttempt, insertAttempt, insertBlock, readAttemptStanding } from './brute-force.repo.ts';

// The brute-force guard shared by both APIs' key authentication and the CRM login: more than
// `limit` attempts from one address group within the window block that group for `blockSeconds`;
// logins are also counted per account, with a backoff between attempts. Counters live in Postgres
// so every app process sees the same figures. The address is Fastify's `request.ip`, which honours
// X-Forwarded-For only from proxies TRUST_PROXY names, so a client cannot reset its counter by
// forging that header. The guard applies to credentials that fail: a valid key never meets it.

export interface BruteForcePolicy {
  readonly limit: number;
  readonly windowSeconds: number;
  readonly blockSeconds: number;
  /** The longest wait the per-account backoff imposes between two login attempts (0: no backoff). */
  readonly accountBackoffMaxSeconds: number;
}

export function bruteForcePolicy(
  config: Pick<Config, 'AUTH_FAILURE_LIMIT' | 'AUTH_FAILURE_WINDOW_SECONDS' | 'AUTH_BLOCK_SECONDS' | 'AUTH_ACCOUNT_BACKOFF_MAX_SECONDS'>,
) {
  return {
    limit: config.AUTH_FAILURE_LIMIT,
    windowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS,
    blockSeconds: config.AUTH_BLOCK_SECONDS,
    accountBackoffMaxSeconds: config.AUTH_ACCOUNT_BACKOFF_MAX_SECONDS,
  } satisfies BruteForcePolicy;
}

// An account's first attempts within the window are free; each further one must come 1, 2, 4, ...
// seconds (up to the policy's maximum) after the account's nearest other attempt. A person who
// mistypes a few times never notices; a guesser spread over many addresses is slowed to a crawl.
const FREE_ACCOUNT_ATTEMPTS = 5;

function tooManyFailures(retryAfterSeconds: number, message = 'Too many failed authentications from this address; try again later') {
  return new AppError(
    'TOO_MANY_FAILED_AUTHENTICATIONS',
    message,
    { retry_after_seconds: retryAfterSeconds },
    { 'retry-after': String(retryAfterSeconds) },
  );
}

const accountRefusal = (seconds: number) => tooManyFailures(seconds, 'Too many failed logins for this account; try again later');

/** Who an attempt counts against: the caller's address, and for a login the account it names. */
export interface AttemptSubject {
  ip: string;
  /** The login's normalised email, known account or not (so a refusal reveals no account). */
  account?: string;
}

export interface CountedAttempt {
  /** The credentials were right: the attempt no longer counts against anyone. */
  succeeded(): Promise<void>;
}

/**
 * Counts an attempt *before* its credentials are checked, and throws 429 when its address group is
 * blocked, when this attempt crosses the limit (blocking the group), or when its account is over
 * the limit or inside its backoff. Counting first is what keeps concurrent guesses from all being
 * checked before the first failure counts. An attempt that fails stays counted; call
 * `succeeded()` when the credentials were right.
 */
export async function countAttempt(subject: AttemptSubject, policy: BruteForcePolicy, db: Db): Promise<CountedAttempt> {
  const ip = addressGroup(subject.ip);
  // Accounts are stored as a hash: the table never holds the email addresses people typed.
  const account = subject.account === undefined ? null : createHash('sha256').update(subject.account).digest('hex');
  const inserted = await insertAttempt(ip, account, policy.windowSeconds, db);
  if (inserted.id === null) throw tooManyFailures(inserted.blockedSeconds);
  const id = inserted.id;
  const standing = await readAttemptStanding(id, ip, account, policy.windowSeconds, db);
  if (standing.blockedSeconds > 0) throw tooManyFailures(standing.blockedSeconds);
  if (standing.ipAttempts > policy.limit) {
    await insertBlock(ip, policy.blockSeconds, policy.windowSeconds, db);
    ipBlocks.inc();
    throw tooManyFailures(policy.blockSeconds);
  }
  if (account !== null) {
    if (standing.accountAttempts > policy.limit) throw accountRefusal(standing.accountWindowLeftSeconds);
    const backoff = backoffSeconds(standing.accountAttempts, policy.accountBackoffMaxSeconds);
    if (standing.sinceOtherAttemptSeconds !== null && standing.sinceOtherAttemptSeconds < backoff) {
      // This refused attempt counts too, so the next one is the (n+1)-th: tell the wait it will need.
      throw accountRefusal(Math.max(1, Math.ceil(backoffSeconds(standing.accountAttempts + 1, policy.accountBackoffMaxSeconds))));
    }
  }
  return { succeeded: () => deleteAttempt(id, db) };
}

/** The wait the n-th attempt of an account within the window must keep from the account's others. */
function backoffSeconds(attempt: number, maxSeconds: number): number {
  if (attempt <= FREE_ACCOUNT_ATTEMPTS) return 0;
  return Math.min(maxSeconds, 2 ** (attempt - FREE_ACCOUNT_ATTEMPTS - 1));
}

/**
 * Counts a failed key authentication (a wrong bearer token or Notes key), then throws `error`, or
 * 429 when the address group is blocked or this failure crosses the limit.
 */
export async function failAuthentication(ip: string, policy: BruteForcePolicy, error: AppError, db: Db): Promise<never> {
  await countAttempt({ ip }, policy, db);
  throw error;
}
