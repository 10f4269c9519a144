import { and, eq, gte, lte, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { notesApiKeyUsage } from '../../platform/db/schema/index.ts';

export interface UsageCell {
  day: string;
  endpoint: string;
  statusClass: string;
  count: number;
}

/** Usage of one key between two UTC days, both inclusive. */
export async function usageOfKey(db: Db, keyId: string, fromDay: string, toDay: string): Promise<UsageCell[]> {
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
