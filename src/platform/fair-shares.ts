import type { Db } from './db/client.ts';
import { sql } from './db/drizzle.ts';

/**
 * Fair shares between the groups of one queue (a group is whatever the sender names: for the Notes
 * jobs, the clinic), built on pg-boss's own ordering and group limit:
 *
 * - **Turns.** pg-boss takes the waiting job of highest `priority`, the oldest first among equals.
 *   A job is sent with the priority of its group's next *round*: one past the group's last job
 *   still waiting or running, and never before the round being served now (the latest round
 *   running, or just before the earliest round waiting). A group with nothing in the queue
 *   therefore joins the current round, behind at most one job of each other group, and ahead of
 *   the next job of a group whose turn is running; a group that sent 300 jobs holds rounds
 *   r..r+299 and takes one turn per round. Rounds are read from the queue's jobs themselves (those
 *   running and those due), so nothing else is stored and a job that ended leaves nothing to correct.
 * - **Ahead of its group.** An `ahead` job (a live capture's: the vet is waiting) runs its own
 *   sequence of rounds, in the half-round before the same round's other jobs.
 * - **A cap.** `maxPerGroup` jobs of one group active at once, across every process: pg-boss's
 *   `groupConcurrency` leaves a group at its cap out of the fetch. Two fetches in the same instant
 *   each count the other's claims as not yet made, so a handler first checks the cap again once its
 *   claim is committed ({@link backOffBeyondShare}) and gives the job back when one too many started.
 */
export interface FairShares {
  /** Jobs of one group active at once, counted across every worker process. */
  readonly maxPerGroup: number;
}

/** Where pg-boss keeps its jobs (its default schema, which vetflow does not change). */
const JOBS = sql.raw('pgboss.job');

/**
 * The pg-boss priority of a job of `group` sent now: minus twice its round, minus one more unless
 * it goes `ahead` (pg-boss takes the highest priority first). Read in the sender's transaction.
 */
export async function fairPriority(queue: string, group: string, ahead: boolean, db: Db): Promise<number> {
  const lane = ahead ? 0 : 1;
  const result = (await db.execute(sql`
    with current as (
      select (-priority) / 2 as round, (-priority) % 2 as lane, group_id, state = 'active' as running from ${JOBS}
      where name = ${queue} and (state = 'active' or (state < 'active' and not blocked and start_after <= now()))
    )
    select greatest(
      0,
      (select max(round) from current where running),
      (select min(round) - 1 from current where not running),
      (select max(round) + 1 from current where group_id = ${group} and lane = ${lane})
    )::int as round`)) as unknown as { rows: { round: number }[] };
  return -(2 * Number(result.rows[0]!.round) + lane);
}

/** A job given back waits this long before it may be fetched again (see below). */
const BACK_OFF_SECONDS = 2;

/**
 * Called as a job of `group` starts, before its handler: when more than `maxPerGroup` jobs of the
 * group are active (two processes fetched in the same instant), gives this one back to the queue
 * and answers true; its handler must not run. One statement, no lock: a job that goes on saw at most
 * `maxPerGroup` active jobs after its own claim committed, and every job already going on is among
 * them (it stays active while it runs), so the jobs going on never exceed the cap. Jobs that check
 * in the same instant may all give themselves back; they are fetched again a moment later.
 *
 * The job goes back as pg-boss gives back a job it fetched beyond a local limit (state created,
 * `started_on` cleared, so the next claim spends no retry), due a moment later: pg-boss settles the
 * job when the handler returns, fenced on its attempt, and a job claimed again before that settle
 * would carry the same attempt number.
 */
export async function backOffBeyondShare(
  queue: string,
  group: string,
  job: { id: string; retryCount: number },
  shares: FairShares,
  db: Db,
): Promise<boolean> {
  const result = (await db.execute(sql`
    update ${JOBS} set state = 'created', started_on = null, heartbeat_on = null,
      start_after = now() + make_interval(secs => ${BACK_OFF_SECONDS})
    where name = ${queue} and id = ${job.id} and state = 'active' and retry_count = ${job.retryCount}
      and (select count(*) from ${JOBS} where name = ${queue} and state = 'active' and group_id = ${group}) > ${shares.maxPerGroup}
    returning id`)) as unknown as { rows: unknown[] };
  return result.rows.length > 0;
}
