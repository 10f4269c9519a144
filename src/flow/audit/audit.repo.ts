import { and, desc, eq, lt, sql, type WithSubquery } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import type { Db } from '../../platform/db/client.ts';
import { contactExternalApiAuditLogs } from '../../platform/db/schema/index.ts';

export type AuditRow = typeof contactExternalApiAuditLogs.$inferSelect;
export type NewAuditRow = typeof contactExternalApiAuditLogs.$inferInsert;

/** An audit entry whose contact is the row a statement writes (see `auditOf`). */
export type AuditEntry = Omit<NewAuditRow, 'contactId' | 'id' | 'createdAt'>;

/**
 * A CTE that inserts an audit entry for the contact row the CTE `written` returns: none when the
 * write touched no row, so a write and its audit entry stand or fall together in one statement.
 * Its values are placeholders (`auditParams`), so the statement can be prepared once.
 */
export function auditOf(written: WithSubquery<string, { id: unknown }>) {
  const table = contactExternalApiAuditLogs;
  const p = (name: keyof ReturnType<typeof auditParams>) => sql.placeholder(name);
  return new QueryBuilder().$with('audited', { id: sql<string>`id` }).as(sql`
    insert into ${table} (workspace_id, contact_id, api_key_id, api_key_prefix, action, changes, warnings, request_id, ip)
    select ${p('auditWorkspaceId')}::uuid, ${written}.id, ${p('auditKeyId')}::uuid, ${p('auditKeyPrefix')}::text,
      ${p('auditAction')}::text, ${p('auditChanges')}::jsonb,
      array(select jsonb_array_elements_text(${p('auditWarnings')}::jsonb)), ${p('auditRequestId')}::text, ${p('auditIp')}::text
    from ${written}
    returning id`);
}

/** The placeholder values of `auditOf` for one entry. */
export function auditParams(entry: AuditEntry) {
  return {
    auditWorkspaceId: entry.workspaceId,
    auditKeyId: entry.apiKeyId ?? null,
    auditKeyPrefix: entry.apiKeyPrefix,
    auditAction: entry.action,
    auditChanges: JSON.stringify(entry.changes),
    auditWarnings: JSON.stringify(entry.warnings),
    auditRequestId: entry.requestId,
    auditIp: entry.ip ?? null,
  };
}

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
    .orderBy(desc(contactExternalApiAuditLogs.createdAt), desc(contactExternalApiAuditLogs.id))
    .limit(page.limit)
    .offset(page.offset);
  const [count] = await tx.select({ total: sql<number>`count(*)::int` }).from(contactExternalApiAuditLogs).where(where);
  return { rows, total: count?.total ?? 0 };
}

/** Deletes entries older than the cut-off; returns how many. */
export async function deleteAuditLogsBefore(cutoff: Date, tx: Db): Promise<number> {
  const deleted = await tx
    .delete(contactExternalApiAuditLogs)
    .where(lt(contactExternalApiAuditLogs.createdAt, cutoff))
    .returning({ id: contactExternalApiAuditLogs.id });
  return deleted.length;
}
