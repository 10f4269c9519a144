import { bindService } from '../../platform/bind-service.ts';
import { announceInvalidation } from '../../platform/db/announce-invalidation.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { CrmCaller } from '../callers.ts';
import { findWorkspace } from '../workspaces/workspaces.repo.ts';
import { CRM_KEY_INVALIDATION, invalidateCrmKeyCache } from './key-cache.ts';
import { type ApiKeyRow, insertApiKey, listActiveApiKeys, revokeApiKey } from './keys.repo.ts';
import { parseScopes } from './scopes.ts';
import { displayPrefix, generateToken, hashToken } from './token.ts';

/** What the integration keys of a workspace are managed with. */
export interface CrmKeysDeps {
  db: Db;
}

export interface NewApiKey {
  name: string;
  scopes: readonly string[];
}

/** Keys are managed by an administrator of their workspace, or by the operator. */
export function assertKeyManager(caller: CrmCaller, workspaceId: string): void {
  if (caller.kind === 'operator') return;
  if (caller.kind !== 'user' || caller.workspaceId !== workspaceId) {
    throw new AppError('WORKSPACE_MISMATCH', 'You do not belong to this workspace');
  }
  if (caller.role !== 'administrator') {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'Only a workspace administrator can manage API keys', {
      required_role: 'administrator',
      current_role: caller.role,
    });
  }
}

/** Issues a key; the plain token exists only in the returned value and is never stored. */
async function issueApiKey(
  { db }: CrmKeysDeps,
  caller: CrmCaller,
  workspaceId: string,
  input: NewApiKey,
): Promise<{ key: ApiKeyRow; token: string }> {
  assertKeyManager(caller, workspaceId);
  const name = input.name.trim();
  if (name === '' || name.length > 100) throw new AppError('INVALID_REQUEST', 'The key name must have 1 to 100 characters');
  const scopes = parseScopes(input.scopes);
  if (!(await findWorkspace(workspaceId, db))) throw new AppError('WORKSPACE_NOT_FOUND', 'Workspace not found');
  const token = generateToken();
  const key = await insertApiKey(
    {
      workspaceId,
      name,
      scopes,
      tokenHash: hashToken(token),
      prefix: displayPrefix(token),
      createdByUserId: caller.kind === 'user' ? caller.userId : null,
    },
    db,
  );
  return { key, token };
}

function listApiKeys({ db }: CrmKeysDeps, caller: CrmCaller, workspaceId: string): Promise<ApiKeyRow[]> {
  assertKeyManager(caller, workspaceId);
  return listActiveApiKeys(workspaceId, db);
}

/**
 * Revokes at once: the revocation is announced in its own transaction, so every process drops its
 * cached lookups as it commits, and this one before answering.
 */
async function revokeKey({ db }: CrmKeysDeps, caller: CrmCaller, workspaceId: string, keyId: string): Promise<void> {
  assertKeyManager(caller, workspaceId);
  const found = await db.transaction(async (tx) => {
    const revoked = await revokeApiKey(workspaceId, keyId, tx);
    if (revoked) await announceInvalidation(CRM_KEY_INVALIDATION, tx);
    return revoked;
  });
  if (!found) throw new AppError('API_KEY_NOT_FOUND', 'API key not found');
  invalidateCrmKeyCache(db);
}

/** Integration keys of a workspace, bound to the database once. */
export function crmKeysService(deps: CrmKeysDeps) {
  return bindService(deps, { issueApiKey, listApiKeys, revokeKey });
}

export type CrmKeysService = ReturnType<typeof crmKeysService>;
