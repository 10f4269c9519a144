import { AppError } from '../../platform/errors.ts';

/**
 * Every scope a CRM key can hold (API description §5.2). `/external/me` needs none. `contacts:erase`
 * (anonymising a contact for good, docs/privacy.md) is its own scope: a key that may delete (and so
 * restore) contacts may not erase them unless it is given that too.
 */
export const CRM_SCOPES = ['contacts:write', 'contacts:read', 'contacts:delete', 'contacts:erase', 'satisfaction:write'] as const;
export type CrmScope = (typeof CRM_SCOPES)[number];

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
