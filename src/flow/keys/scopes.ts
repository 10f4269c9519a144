import { AppError } from '../../platform/errors.ts';
import { CRM_SCOPES, type CrmScope } from '../callers.ts';

export { CRM_SCOPES, type CrmScope };

const KNOWN = new Set<string>(CRM_SCOPES);

/** The requested scopes in the caller's order, de-duplicated; an unknown one → 400 INVALID_SCOPE. */
export function parseScopes(requested: readonly string[]): CrmScope[] {
  const unknown = requested.filter((scope) => !KNOWN.has(scope));
  if (unknown.length > 0) {
    throw new AppError('INVALID_SCOPE', `Unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}`, {
      unknown_scopes: unknown,
      allowed_scopes: [...CRM_SCOPES],
    });
  }
  return [...new Set(requested)] as CrmScope[];
}
