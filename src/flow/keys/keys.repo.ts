import type { Db } from '../../platform/db/client.ts';
import { and, desc, eq, isNull, sql } from '../../platform/db/drizzle.ts';
import { crmApiKeys, workspaces } from '../../platform/db/schema/index.ts';

export type ApiKeyRow = typeof crmApiKeys.$inferSelect;

export async function insertApiKey(
  values: Pick<ApiKeyRow, 'workspaceId' | 'name' | 'tokenHash' | 'prefix' | 'scopes' | 'createdByUserId'>,
  tx: Db,
): Promise<ApiKeyRow> {
  const [row] = await tx.insert(crmApiKeys).values(values).returning();
  return row!;
}

/** Active (not revoked) keys of a workspace, newest first. */
export function listActiveApiKeys(workspaceId: string, tx: Db): Promise<ApiKeyRow[]> {
  return tx
    .select()
    .from(crmApiKeys)
    .where(and(eq(crmApiKeys.workspaceId, workspaceId), isNull(crmApiKeys.revokedAt)))
    .orderBy(desc(crmApiKeys.createdAt), desc(crmApiKeys.id));
}

/** Marks the key revoked (keeping the first revocation time); false when the workspace has no such key. */
export async function revokeApiKey(workspaceId: string, id: string, tx: Db): Promise<boolean> {
  const rows = await tx
    .update(crmApiKeys)
    .set({ revokedAt: sql`coalesce(${crmApiKeys.revokedAt}, now())` })
    .where(and(eq(crmApiKeys.workspaceId, workspaceId), eq(crmApiKeys.id, id)))
    .returning({ id: crmApiKeys.id });
  return rows.length > 0;
}

/**
 * The active key with this token hash and its workspace: one indexed lookup per request the cache
 * cannot answer (a valid key not cached yet, or any unknown token, which is never cached), prepared
 * once per database so an unknown token costs one execution of a planned statement.
 */
export function prepareFindActiveKeyByHash(db: Db) {
  return db
    .select({
      id: crmApiKeys.id,
      name: crmApiKeys.name,
      prefix: crmApiKeys.prefix,
      scopes: crmApiKeys.scopes,
      workspaceId: workspaces.id,
      workspaceName: workspaces.name,
      billingStatus: workspaces.billingStatus,
    })
    .from(crmApiKeys)
    .innerJoin(workspaces, eq(workspaces.id, crmApiKeys.workspaceId))
    .where(and(eq(crmApiKeys.tokenHash, sql.placeholder('hash')), isNull(crmApiKeys.revokedAt)))
    .prepare('crm_key_by_hash');
}

export async function touchApiKey(id: string, tx: Db): Promise<void> {
  await tx.update(crmApiKeys).set({ lastUsedAt: sql`now()` }).where(eq(crmApiKeys.id, id));
}
