import type { ApiKeyCaller } from '../callers.ts';
import type { ActiveKey } from './key-cache.ts';
import type { CrmScope } from './scopes.ts';

/** Who acts with an active key: what the bearer routes and the Notes API's CRM link both see. */
export function callerOfKey(key: ActiveKey): ApiKeyCaller {
  return {
    kind: 'api_key',
    keyId: key.id,
    keyName: key.name,
    prefix: key.prefix,
    scopes: key.scopes as CrmScope[],
    workspaceId: key.workspaceId,
    workspaceName: key.workspaceName,
    billingStatus: key.billingStatus as ApiKeyCaller['billingStatus'],
  };
}
