import type { Db } from '../../platform/db/client.ts';
import { and, desc, eq, inArray, lt, sql } from '../../platform/db/drizzle.ts';
import { contactExternalApiAuditLogs } from '../../platform/db/schema/index.ts';

export type AuditRow = typeof contactExternalApiAuditLogs.$inferSelect;
export type NewAuditRow = typeof contactExternalApiAuditLogs.$inferInsert;

/** An audit entry but its contact: what the caller and request contribute. */
export type AuditEntry = Omit<NewAuditRow, 'contactId' | 'id' | 'createdAt' | 'seq'>;

export async function insertAuditLog(values: NewAuditRow, tx: Db): Promise<void> {
  await tx.insert(contactExternalApiAuditLogs).values(values);
}

export async function listAuditLogs(
  workspaceId: string,
  contactId: string,
  page: { limit: number; offset: number },
  tx: Db,
): Promise<{ rows: AuditRow[]; total: number }> {
  const where = and(eq(contactExternalApiAuditLogs.workspaceId, workspaceId), eq(contactExternalApiAuditLogs.contactId, contactId));
  const rows = await tx
    .select()
    .from(contactExternalApiAuditLogs)
    .where(where)
    // Newest first, in write order within a transaction (its entries share created_at).
    .orderBy(desc(contactExternalApiAuditLogs.createdAt), desc(contactExternalApiAuditLogs.seq))
    .limit(page.limit)
    .offset(page.offset);
  const [count] = await tx.select({ total: sql<number>`count(*)::int` }).from(contactExternalApiAuditLogs).where(where);
  return { rows, total: count?.total ?? 0 };
}

/** Deletes up to `limit` entries older than the cut-off, by id, in one statement; returns how many. */
export async function deleteAuditLogsBefore(cutoff: Date, limit: number, tx: Db): Promise<number> {
  const old = tx
    .select({ id: contactExternalApiAuditLogs.id })
    .from(contactExternalApiAuditLogs)
    .where(lt(contactExternalApiAuditLogs.createdAt, cutoff))
    .limit(limit);
  const deleted = await tx
    .delete(contactExternalApiAuditLogs)
    .where(inArray(contactExternalApiAuditLogs.id, old))
    .returning({ id: contactExternalApiAuditLogs.id });
  return deleted.length;
}
