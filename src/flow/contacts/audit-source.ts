import type { ApiKeyCaller } from '../callers.ts';
import type { AuditSource } from './contacts.repo.ts';

/**
 * Who made an external contact write and from where, as its audit entry records it: the key, and
 * the request it came through (`caller.request`, attached by `keyCaller`). Every audited write is
 * made through a request: one without would leave an entry that cannot say where it came from.
 */
export function auditSourceOf(caller: ApiKeyCaller): AuditSource {
  if (!caller.request) throw new Error('An audited contact write needs the request it came through (caller.request)');
  // The address is undefined when the client's socket is already gone.
  return { apiKeyId: caller.keyId, apiKeyPrefix: caller.prefix, requestId: caller.request.id, ip: caller.request.ip ?? null };
}
