import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { CrmCaller } from '../callers.ts';
import { findWorkspace } from '../workspaces/workspaces.repo.ts';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password.ts';
import { type CrmUserRow, insertUser } from './users.repo.ts';

export interface NewUser {
  workspaceId: string;
  email: string;
  password: string;
  role: CrmUserRow['role'];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Emails compare case-insensitively: stored and looked up trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * What the operator's services run on: the database, or the transaction of a caller that must
 * commit more with them (the demo workspace and its "done" mark), and the scrypt cost.
 */
export interface OperatorDeps {
  db: Db;
  /** PASSWORD_SCRYPT_LOG_N. */
  logN: number;
}

/** Creates a CRM user. Only the operator creates users for now (CLI `user create`, `workspace create`). */
async function createUser({ db, logN }: OperatorDeps, caller: CrmCaller, input: NewUser): Promise<CrmUserRow> {
  if (caller.kind !== 'operator') throw new AppError('INSUFFICIENT_PERMISSIONS', 'Only the operator can create users');
  const email = normaliseEmail(input.email);
  if (!EMAIL.test(email) || email.length > 254) throw new AppError('INVALID_REQUEST', 'Invalid email address', { field: 'email' });
  if (input.password.length < PASSWORD_MIN_LENGTH || input.password.length > PASSWORD_MAX_LENGTH) {
    throw new AppError('INVALID_REQUEST', `The password must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`, {
      field: 'password',
    });
  }
  if (!(await findWorkspace(input.workspaceId, db))) throw new AppError('WORKSPACE_NOT_FOUND', 'Workspace not found');
  const passwordHash = await hashPassword(input.password, logN);
  const user = await insertUser({ workspaceId: input.workspaceId, email, passwordHash, role: input.role }, db);
  if (!user) throw new AppError('EMAIL_TAKEN', 'A user with this email already exists');
  return user;
}

/** CRM users as the operator manages them, bound to a database or a caller's transaction. */
export function usersService(deps: OperatorDeps) {
  return bindService(deps, { createUser });
}
