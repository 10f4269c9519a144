import { bindService } from '../../platform/bind-service.ts';
import { announceInvalidation } from '../../platform/db/announce-invalidation.ts';
import { AppError } from '../../platform/errors.ts';
import type { CrmCaller } from '../callers.ts';
import { CRM_KEY_INVALIDATION, invalidateCrmKeyCache } from '../keys/key-cache.ts';
import { type OperatorDeps, usersService } from '../users/users.service.ts';
import { insertWorkspace, updateWorkspace, type WorkspaceChanges, type WorkspaceRow } from '../workspaces/workspaces.repo.ts';

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
async function createWorkspace(
  { db, logN }: OperatorDeps,
  caller: CrmCaller,
  input: NewWorkspace,
): Promise<{ workspace: WorkspaceRow; adminUserId: string }> {
  requireOperator(caller);
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new AppError('INVALID_REQUEST', 'The workspace name must have 1 to 200 characters');
  return db.transaction(async (tx) => {
    const workspace = await insertWorkspace({ name, contactSyncPolicy: input.contactSyncPolicy }, tx);
    const admin = await usersService({ db: tx, logN }).createUser(caller, {
      workspaceId: workspace.id,
      email: input.adminEmail,
      password: input.adminPassword,
      role: 'administrator',
    });
    return { workspace, adminUserId: admin.id };
  });
}

async function changeWorkspace(
  { db }: OperatorDeps,
  caller: CrmCaller,
  workspaceId: string,
  changes: WorkspaceChanges,
): Promise<WorkspaceRow> {
  requireOperator(caller);
  const workspace = await updateWorkspace(workspaceId, changes, db);
  if (!workspace) throw new AppError('WORKSPACE_NOT_FOUND', 'Workspace not found');
  // Billing status and name travel with cached bearer keys: every process drops them (at commit
  // when `db` is the caller's transaction).
  await announceInvalidation(CRM_KEY_INVALIDATION, db);
  invalidateCrmKeyCache(db);
  return workspace;
}

/**
 * Workspaces as the operator manages them (CLI, demo workspace), bound to a database or to a
 * caller's transaction: `workspacesService({ db: tx, logN }).createWorkspace(OPERATOR, input)`.
 */
export function workspacesService(deps: OperatorDeps) {
  return bindService(deps, { createWorkspace, changeWorkspace });
}
