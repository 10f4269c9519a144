import type { FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.ts';
import type { SessionView } from './auth/sessions.service.ts';
import type { ApiKeyCaller, CrmUserCaller } from './callers.ts';
import type { CrmScope } from './keys/scopes.ts';

/** What an external route demands of its bearer key. Every `/external/*` route must declare one. */
export interface ExternalAuthPolicy {
  /** The scope the key must hold; null for routes any valid key may call (`/external/me`). */
  readonly scope: CrmScope | null;
  /** True only where a workspace with suspended billing may still call (`/external/me`). */
  readonly allowSuspendedBilling?: boolean;
}

// What the CRM authentication hooks attach to a request, and the route option they read.
declare module 'fastify' {
  interface FastifyRequest {
    crmSession?: SessionView;
    crmKey?: ApiKeyCaller;
  }
  interface FastifyContextConfig {
    /** Required on every `/flow/v1/external/*` route: which scope it needs, whether suspended billing may call it. */
    crmAuth?: ExternalAuthPolicy;
  }
}

/** The logged-in user of a route behind `requireSession`. */
export function sessionCaller(request: FastifyRequest): CrmUserCaller {
  if (!request.crmSession) throw new AppError('UNAUTHORIZED', 'Log in first');
  return request.crmSession.caller;
}

/** The key of an external route (set by the external auth hook). */
export function keyCaller(request: FastifyRequest): ApiKeyCaller {
  if (!request.crmKey) throw new AppError('INVALID_API_KEY', 'Missing API key');
  return request.crmKey;
}
