import type { Db } from '../../platform/db/client.ts';
import { and, eq, gte, lte, sql } from '../../platform/db/drizzle.ts';
import { notesApiKeyUsage } from '../../platform/db/schema/index.ts';

export interface UsageCell {
  day: string;
  endpoint: string;
  statusClass: string;
  count: number;
}

/** Usage of one key between two UTC days, both inclusive. */
export async function usageOfKey(keyId: string, fromDay: string, toDay: string, db: Db): Promise<UsageCell[]> {
  return db
    .select({
      day: notesApiKeyUsage.day,
      endpoint: notesApiKeyUsage.endpoint,
      statusClass: notesApiKeyUsage.statusClass,
      count: sql<number>`${notesApiKeyUsage.count}::int`,
    })
    .from(notesApiKeyUsage)
    .where(and(eq(notesApiKeyUsage.keyId, keyId), gte(notesApiKeyUsage.day, fromDay), lte(notesApiKeyUsage.day, toDay)))
    .orderBy(notesApiKeyUsage.day, notesApiKeyUsage.endpoint, notesApiKeyUsage.statusClass);
}

/**
 * Adds counted requests and moves keys' `last_used_at` forward, in one transaction of two
 * statements whatever the number of cells. Keys deleted meanwhile are skipped rather than failing
 * the whole batch.
 */
export async function addUsage(
  cells: readonly (UsageCell & { keyId: string })[],
  lastUsed: readonly { keyId: string; at: Date }[],
  db: Db,
): Promise<void> {
  const values = cells.map(
    (cell) => sql`(${cell.keyId}::uuid, ${cell.day}::date, ${cell.endpoint}, ${cell.statusClass}, ${cell.count}::int)`,
  );
  const used = lastUsed.map(({ keyId, at }) => sql`(${keyId}::uuid, ${at.toISOString()}::timestamptz)`);
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into notes_api_key_usage (key_id, day, endpoint, status_class, count)
      select v.* from (values ${sql.join(values, sql`, `)}) as v(key_id, day, endpoint, status_class, count)
      where exists (select 1 from notes_api_keys k where k.id = v.key_id)
      on conflict (key_id, day, endpoint, status_class)
      do update set count = notes_api_key_usage.count + excluded.count`);
    await tx.execute(sql`
      update notes_api_keys k set last_used_at = greatest(k.last_used_at, v.at)
      from (values ${sql.join(used, sql`, `)}) as v(id, at) where k.id = v.id`);
  });
}
