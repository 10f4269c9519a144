import type { Db } from '../../platform/db/client.ts';
import { and, count, eq, gt, lt, sql } from '../../platform/db/drizzle.ts';
import { authBlocks, authFailures } from '../../platform/db/schema/index.ts';

// All times come from the database clock, so app processes with skewed clocks still agree.

const secondsAgo = (seconds: number) => sql`now() - make_interval(secs => ${seconds}::int)`;

/** Records one failure and returns how many this IP has within the window, this one included. */
export async function insertFailure(ip: string, windowSeconds: number, tx: Db): Promise<number> {
  await tx.insert(authFailures).values({ ip });
  const [row] = await tx
    .select({ n: count() })
    .from(authFailures)
    .where(and(eq(authFailures.ip, ip), gt(authFailures.failedAt, secondsAgo(windowSeconds))));
  // Failures older than the window never count again: keep the table small. SKIP LOCKED so that
  // concurrent failures (an attack, many processes) never wait on, or deadlock over, the same rows.
  await tx.execute(sql`
    delete from auth_failures where id in (
      select id from auth_failures where failed_at < ${secondsAgo(windowSeconds)}
      order by id limit 1000 for update skip locked)`);
  return row?.n ?? 0;
}

/** Blocks the IP for `blockSeconds` from now and forgets its failures: after the block it starts afresh. */
export async function insertBlock(ip: string, blockSeconds: number, tx: Db): Promise<Date> {
  await tx.delete(authBlocks).where(lt(authBlocks.blockedUntil, sql`now()`));
  const [row] = await tx
    .insert(authBlocks)
    .values({ ip, blockedUntil: sql`now() + make_interval(secs => ${blockSeconds}::int)` })
    .onConflictDoUpdate({
      target: authBlocks.ip,
      set: { blockedUntil: sql`greatest(${authBlocks.blockedUntil}, excluded.blocked_until)` },
    })
    .returning({ blockedUntil: authBlocks.blockedUntil });
  await tx.delete(authFailures).where(eq(authFailures.ip, ip));
  return row!.blockedUntil;
}

/** Seconds this IP is still blocked for, or 0. */
export async function blockedSeconds(ip: string, tx: Db): Promise<number> {
  const [row] = await tx
    .select({ seconds: sql<number>`ceil(extract(epoch from ${authBlocks.blockedUntil} - now()))::int` })
    .from(authBlocks)
    .where(and(eq(authBlocks.ip, ip), gt(authBlocks.blockedUntil, sql`now()`)));
  return row ? Math.max(1, Number(row.seconds)) : 0;
}
