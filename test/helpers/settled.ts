import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../src/platform/db/client.ts';
import { sql } from '../../src/platform/db/drizzle.ts';

/**
 * Waits until every transaction begun before the call has ended. The change feed (and its
 * retention) only reach below the oldest transaction still running on the whole server, so on a
 * shared server the newest changes are readable, and prunable, a moment later.
 */
export async function settled(db: Db): Promise<void> {
  const read = async (statement: ReturnType<typeof sql>) =>
    BigInt(((await db.execute(statement)) as unknown as { rows: [{ value: string }] }).rows[0].value);
  const next = await read(sql`select pg_snapshot_xmax(pg_current_snapshot())::text as value`);
  while ((await read(sql`select pg_snapshot_xmin(pg_current_snapshot())::text as value`)) < next) await sleep(10);
}
