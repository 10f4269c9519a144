import type { FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.ts';
import { requestOriginOf } from '../platform/http/request-origin.ts';
import type { ApiKeyCaller, CrmUserCaller, SessionView } from './callers.ts';

// What the CRM authentication hooks attach to a request.
declare module 'fastify' {
  interface FastifyRequest {
    crmSession?: SessionView;
    crmKey?: ApiKeyCaller;
  }
}

/**
 * The logged-in user of a route whose access is a session role (set by the session guard), acting
 * through this request. A copy: what the guard attached is never changed.
 */
export function sessionCaller(request: FastifyRequest): CrmUserCaller {
  if (!request.crmSession) throw new AppError('UNAUTHORIZED', 'Log in first');
  return { ...request.crmSession.caller, request: requestOriginOf(request) };
}

/** The key of an external route (set by the external auth hook), acting through this request; a copy, as above. */
export function keyCaller(request: FastifyRequest): ApiKeyCaller {
  if (!request.crmKey) throw new AppError('INVALID_API_KEY', 'Missing API key');
  return { ...request.crmKey, request: requestOriginOf(request) };
}
