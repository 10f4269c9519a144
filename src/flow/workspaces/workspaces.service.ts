import { announceInvalidation } from '../../platform/db/announce-invalidation.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { CrmCaller } from '../callers.ts';
import { CRM_KEY_INVALIDATION, invalidateCrmKeyCache } from '../keys/key-cache.ts';
import { createUser } from '../users/users.service.ts';
import { insertWorkspace, updateWorkspace, type WorkspaceChanges, type WorkspaceRow } from './workspaces.repo.ts';

export interface NewWorkspace {
  name: string;
  adminEmail: string;
  adminPassword: string;
  contactSyncPolicy?: WorkspaceRow['contactSyncPolicy'];
}

function requireOperator(caller: CrmCaller): void {
  // Workspaces and their billing are run by the operator of the service, never from the API.
  if (caller.kind !== 'operator') throw new AppError('INSUFFICIENT_PERMISSIONS', 'Only the operator can manage workspaces');
}

/** A workspace and its first administrator, both or neither. */
export async function createWorkspace(
  caller: CrmCaller,
  input: NewWorkspace,
  logN: number,
  db: Db,
): Promise<{ workspace: WorkspaceRow; adminUserId: string }> {
  requireOperator(caller);
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new AppError('INVALID_REQUEST', 'The workspace name must have 1 to 200 characters');
  return db.transaction(async (tx) => {
    const workspace = await insertWorkspace({ name, contactSyncPolicy: input.contactSyncPolicy }, tx);
    const admin = await createUser(
      caller,
      { workspaceId: workspace.id, email: input.adminEmail, password: input.adminPassword, role: 'administrator' },
      logN,
      tx,
    );
    return { workspace, adminUserId: admin.id };
  });
}

export async function changeWorkspace(caller: CrmCaller, workspaceId: string, changes: WorkspaceChanges, db: Db): Promise<WorkspaceRow> {
  requireOperator(caller);
  const workspace = await updateWorkspace(workspaceId, changes, db);
  if (!workspace) throw new AppError('WORKSPACE_NOT_FOUND', 'Workspace not found');
  // Billing status and name travel with cached bearer keys: every process drops them (at commit
  // when `db` is the caller's transaction).
  await announceInvalidation(CRM_KEY_INVALIDATION, db);
  invalidateCrmKeyCache(db);
  return workspace;
}
