import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { assertAdministrator } from '../access.ts';
import type { CrmCaller } from '../callers.ts';
import { type CrmUserRow, deleteSessionsOfUser, listUsersOfWorkspace, setUserDisabled } from './users.repo.ts';

/** What a workspace's users are managed with. */
export interface WorkspaceUsersDeps {
  db: Db;
}

export interface UserChanges {
  disabled: boolean;
}

function listUsers({ db }: WorkspaceUsersDeps, caller: CrmCaller, workspaceId: string): Promise<CrmUserRow[]> {
  assertAdministrator(caller, workspaceId, 'list users');
  return listUsersOfWorkspace(workspaceId, db);
}

/**
 * Disables or re-enables a user. Disabling ends every session of the user in the same transaction,
 * so no request after the answer is served as them; their logins are refused until re-enabled.
 */
async function changeUser(
  { db }: WorkspaceUsersDeps,
  caller: CrmCaller,
  workspaceId: string,
  userId: string,
  changes: UserChanges,
): Promise<CrmUserRow> {
  assertAdministrator(caller, workspaceId, 'disable or enable users');
  // The administrator who could re-enable everyone must not lock themselves out by mistake.
  if (changes.disabled && caller.kind === 'user' && caller.userId === userId) {
    throw new AppError('INVALID_REQUEST', 'You cannot disable your own account', { field: 'disabled' });
  }
  return db.transaction(async (tx) => {
    const user = await setUserDisabled(workspaceId, userId, changes.disabled, tx);
    if (!user) throw new AppError('USER_NOT_FOUND', 'User not found');
    if (changes.disabled) await deleteSessionsOfUser(userId, tx);
    return user;
  });
}

/** The users of a workspace as its administrators manage them, bound to the database once. */
export function workspaceUsersService(deps: WorkspaceUsersDeps) {
  return bindService(deps, { listUsers, changeUser });
}

export type WorkspaceUsersService = ReturnType<typeof workspaceUsersService>;
