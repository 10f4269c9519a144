import type { RequestOrigin } from '../platform/http/request-origin.ts';

// Who is asking, passed explicitly to every CRM service: a logged-in CRM user, an integration key,
// or the operator at the CLI (trusted, no workspace of its own). A user or key acting through a
// request carries it (`request`: its id and the client's address, attached by `sessionCaller` and
// `keyCaller`, request-context.ts); services read it there, for the audit trail.

export interface CrmUserCaller {
  readonly kind: 'user';
  readonly userId: string;
  readonly workspaceId: string;
  readonly role: 'administrator' | 'agent';
  /** The request the user acts through; absent outside a request. */
  readonly request?: RequestOrigin;
}

export interface ApiKeyCaller {
  readonly kind: 'api_key';
  readonly keyId: string;
  readonly keyName: string;
  readonly prefix: string;
  readonly scopes: readonly CrmScope[];
  readonly workspaceId: string;
  readonly workspaceName: string;
  readonly billingStatus: 'active' | 'suspended';
  /** The request the key acts through; absent outside a request. */
  readonly request?: RequestOrigin;
}

export interface OperatorCaller {
  readonly kind: 'operator';
}

export type CrmCaller = CrmUserCaller | ApiKeyCaller | OperatorCaller;

export const OPERATOR: OperatorCaller = { kind: 'operator' };

/**
 * Every scope a CRM key can hold (API description §5.2). `/external/me` needs none. `contacts:erase`
 * (anonymising a contact for good, docs/privacy.md) is its own scope: a key that may delete (and so
 * restore) contacts may not erase them unless it is given that too.
 */
export const CRM_SCOPES = [
  'contacts:write',
  'contacts:read',
  'contacts:delete',
  'contacts:erase',
  'satisfaction:write',
  'messages:send',
] as const;
export type CrmScope = (typeof CRM_SCOPES)[number];

/** A logged-in CRM user's session, as the session guard attaches it to the request. */
export interface SessionView {
  caller: CrmUserCaller;
  email: string;
  workspaceName: string;
  expiresAt: Date;
}
