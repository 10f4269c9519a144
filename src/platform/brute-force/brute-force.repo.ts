import type { Db } from '../db/client.ts';
import { eq, sql } from '../db/drizzle.ts';
import { authBlocks, authFailures } from '../db/schema/index.ts';

// All times come from the database clock, so app processes with skewed clocks still agree.
// `ip` is an address group (brute-force/address-group.ts), `account` a hash of a login's email.

const secondsAgo = (seconds: number) => sql`now() - make_interval(secs => ${seconds}::int)`;

/**
 * Records one attempt of `ip` (and `account`) unless `ip` is blocked. Answers the new row's id, or
 * the seconds the block still lasts (then nothing is recorded: a blocked flood writes no rows).
 * Attempts older than the window never count again and are deleted on the way, SKIP LOCKED so that
 * concurrent attempts (an attack, many processes) never wait on, or deadlock over, the same rows.
 */
export async function insertAttempt(
  ip: string,
  account: string | null,
  windowSeconds: number,
  db: Db,
): Promise<{ id: number; blockedSeconds: 0 } | { id: null; blockedSeconds: number }> {
  const result = (await db.execute(sql`
    with block as (
      select blocked_until from auth_blocks where ip = ${ip} and blocked_until > now()
    ), pruned as (
      delete from auth_failures where id in (
        select id from auth_failures where failed_at < ${secondsAgo(windowSeconds)}
        order by id limit 1000 for update skip locked)
    ), inserted as (
      insert into auth_failures (ip, account)
      select ${ip}, ${account}::text where not exists (select 1 from block)
      returning id
    )
    select (select id from inserted) as id,
      (select ceil(extract(epoch from blocked_until - now()))::int from block) as blocked_seconds`)) as unknown as {
    rows: { id: string | number | null; blocked_seconds: number | null }[];
  };
  const row = result.rows[0]!;
  if (row.id === null) return { id: null, blockedSeconds: Math.max(1, Number(row.blocked_seconds)) };
  return { id: Number(row.id), blockedSeconds: 0 };
}

export interface AttemptStanding {
  /** Seconds `ip` is still blocked for, or 0. */
  blockedSeconds: number;
  /** Attempts of `ip` within the window since its last block ended, this one included. */
  ipAttempts: number;
  /** Attempts of `account` within the window, this one included (0 without an account). */
  accountAttempts: number;
  /** Seconds until the oldest attempt of `account` leaves the window. */
  accountWindowLeftSeconds: number;
  /** Seconds from the nearest other attempt of `account` to this one; null when there is none. */
  sinceOtherAttemptSeconds: number | null;
}

/**
 * Where attempt `id` stands, read in a statement of its own after the attempt was committed: every
 * attempt then sees at least every attempt committed before its own, so the k-th attempt to commit
 * counts at least k and no more than the limit can count themselves within it, however many run at
 * once (docs/flow-access.md, "Brute force").
 */
export async function readAttemptStanding(
  id: number,
  ip: string,
  account: string | null,
  windowSeconds: number,
  db: Db,
): Promise<AttemptStanding> {
  const result = (await db.execute(sql`
    with mine as (select failed_at from auth_failures where id = ${id}),
    block as (select blocked_until from auth_blocks where ip = ${ip}),
    account_attempts as (
      select id, failed_at from auth_failures where account = ${account}::text and failed_at > ${secondsAgo(windowSeconds)}
    )
    select
      coalesce((select ceil(extract(epoch from blocked_until - now()))::int from block where blocked_until > now()), 0) as blocked_seconds,
      (select count(*)::int from auth_failures
        where ip = ${ip} and failed_at > ${secondsAgo(windowSeconds)}
          and failed_at > coalesce((select blocked_until from block), '-infinity')) as ip_attempts,
      (select count(*)::int from account_attempts) as account_attempts,
      (select extract(epoch from min(failed_at) + make_interval(secs => ${windowSeconds}::int) - now())::float8
        from account_attempts) as account_window_left,
      (select min(abs(extract(epoch from (select failed_at from mine) - failed_at)))::float8
        from account_attempts where id <> ${id}) as since_other`)) as unknown as {
    rows: {
      blocked_seconds: number;
      ip_attempts: number;
      account_attempts: number;
      account_window_left: number | null;
      since_other: number | null;
    }[];
  };
  const row = result.rows[0]!;
  return {
    blockedSeconds: Number(row.blocked_seconds),
    ipAttempts: Number(row.ip_attempts),
    accountAttempts: Number(row.account_attempts),
    accountWindowLeftSeconds: Math.max(1, Math.ceil(Number(row.account_window_left ?? 1))),
    sinceOtherAttemptSeconds: row.since_other === null ? null : Number(row.since_other),
  };
}

/** Forgets attempt `id`: it turned out to be a successful login, which counts against nobody. */
export async function deleteAttempt(id: number, db: Db): Promise<void> {
  await db.delete(authFailures).where(eq(authFailures.id, id));
}

/**
 * Blocks `ip` for `blockSeconds` from now. Its earlier attempts stay (concurrent attempts keep
 * counting them) but count no more once the block ends: readAttemptStanding counts only attempts
 * after it, so after the block the count starts afresh. Blocks older than the window are deleted:
 * no attempt they could exclude is left.
 */
export async function insertBlock(ip: string, blockSeconds: number, windowSeconds: number, db: Db): Promise<void> {
  await db.delete(authBlocks).where(sql`${authBlocks.blockedUntil} < ${secondsAgo(windowSeconds)}`);
  await db
    .insert(authBlocks)
    .values({ ip, blockedUntil: sql`now() + make_interval(secs => ${blockSeconds}::int)` })
    .onConflictDoUpdate({
      target: authBlocks.ip,
      set: { blockedUntil: sql`greatest(${authBlocks.blockedUntil}, excluded.blocked_until)` },
    });
}
