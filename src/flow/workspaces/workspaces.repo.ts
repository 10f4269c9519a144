import type { Db } from '../../platform/db/client.ts';
import { eq, sql } from '../../platform/db/drizzle.ts';
import { workspaces } from '../../platform/db/schema/index.ts';

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type WorkspaceChanges = Partial<
  Pick<WorkspaceRow, 'billingStatus' | 'contactSyncPolicy' | 'externalIdRekeying' | 'surveyEnabled' | 'surveyStageId'>
>;

export async function insertWorkspace(
  values: { name: string; contactSyncPolicy?: WorkspaceRow['contactSyncPolicy'] },
  tx: Db,
): Promise<WorkspaceRow> {
  const [row] = await tx.insert(workspaces).values(values).returning();
  return row!;
}

export async function findWorkspace(id: string, tx: Db): Promise<WorkspaceRow | undefined> {
  const [row] = await tx.select().from(workspaces).where(eq(workspaces.id, id));
  return row;
}

export async function updateWorkspace(id: string, changes: WorkspaceChanges, tx: Db): Promise<WorkspaceRow | undefined> {
  const [row] = await tx
    .update(workspaces)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(workspaces.id, id))
    .returning();
  return row;
}

export async function anyWorkspaceExists(tx: Db): Promise<boolean> {
  const [row] = await tx.select({ id: workspaces.id }).from(workspaces).limit(1);
  return row !== undefined;
}
