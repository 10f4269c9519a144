import { AppError } from '../platform/errors.ts';
import type { CrmCaller } from './callers.ts';

/** Any user of the workspace (agents included), or the operator. */
export function assertMember(caller: CrmCaller, workspaceId: string): void {
  if (caller.kind === 'operator') return;
  if (caller.kind !== 'user' || caller.workspaceId !== workspaceId) {
    throw new AppError('WORKSPACE_MISMATCH', 'You do not belong to this workspace');
  }
}

/** Settings, stages, survey configuration and audit logs: administrators only. */
export function assertAdministrator(caller: CrmCaller, workspaceId: string, what: string): void {
  assertMember(caller, workspaceId);
  if (caller.kind === 'user' && caller.role !== 'administrator') {
    throw new AppError('INSUFFICIENT_PERMISSIONS', `Only a workspace administrator can ${what}`, {
      required_role: 'administrator',
      current_role: caller.role,
    });
  }
}
