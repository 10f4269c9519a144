import type { FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import type { RouteAccess } from '../../platform/http/route-access.ts';
import { guarded, routeName } from '../../platform/http/route-registry.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import '../request-context.ts';
import { readSessionCookie } from './session-cookie.ts';
import type { SessionsService } from './sessions.service.ts';

/**
 * The role a CRM-side route needs of the logged-in user: `member` (any user of the workspace in the
 * path) or `administrator`. The guard below demands the session; the role itself is checked by the
 * service, whose message names the operation, and the session suite proves every `administrator`
 * route refuses an agent.
 */
export type CrmSessionRole = 'member' | 'administrator';

export interface CrmSessionAccess {
  readonly crmSessionRole: CrmSessionRole;
}

declare module '../../platform/http/route-access.ts' {
  interface RouteAccessKinds {
    crmSession: CrmSessionAccess;
  }
}

/** The session role a route's access declares; undefined when it declares another kind. */
export function crmSessionRoleOf(access: RouteAccess | undefined): CrmSessionRole | undefined {
  return access !== undefined && access !== 'public' && 'crmSessionRole' in access ? access.crmSessionRole : undefined;
}

/**
 * Makes the session part of every route registered in `scope` (the CRM-side `/api/*` routes): a
 * route whose `config.access` is neither a session role nor `'public'` is refused at start-up; a
 * session route gets `requireSession` as its first onRequest hook, so its 401 comes before the body
 * is parsed or validated.
 */
export function enforceSessionAccess(scope: AppInstance, sessions: SessionsService): void {
  const requireSession = sessionGuard(sessions, scope.vetflow.config.PUBLIC_BASE_URL);
  scope.addHook('onRoute', (route: RouteOptions) => {
    const access = route.config?.access;
    if (access === 'public') return;
    if (!crmSessionRoleOf(access)) {
      throw new Error(`${routeName(route)}: a CRM-side route needs config.access = { crmSessionRole } or 'public'`);
    }
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [requireSession, ...existing];
    guarded(route);
  });
}

/** A live session or 401, decided before the body is parsed. */
function sessionGuard(sessions: SessionsService, publicBaseUrl: string) {
  return async function requireSession(request: FastifyRequest): Promise<void> {
    const token = readSessionCookie(request, publicBaseUrl);
    const session = token ? await sessions.resolveSession(token) : undefined;
    if (!session) throw new AppError('UNAUTHORIZED', 'Log in first: no valid session');
    request.crmSession = session;
  };
}
