import type { CrmScope } from './keys/scopes.ts';

// Who is asking, passed explicitly to every CRM service: a logged-in CRM user, an integration key,
// or the operator at the CLI (trusted, no workspace of its own).

export interface CrmUserCaller {
  readonly kind: 'user';
  readonly userId: string;
  readonly workspaceId: string;
  readonly role: 'administrator' | 'agent';
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
}

export interface OperatorCaller {
  readonly kind: 'operator';
}

export type CrmCaller = CrmUserCaller | ApiKeyCaller | OperatorCaller;

export const OPERATOR: OperatorCaller = { kind: 'operator' };
