import type { FastifyRequest } from 'fastify';
import { bruteForcePolicy, failAuthentication } from '../../platform/brute-force/brute-force.ts';
import { AppError } from '../../platform/errors.ts';
import { requestOriginOf } from '../../platform/http/request-origin.ts';
import type { RouteAccess } from '../../platform/http/route-access.ts';
import { guarded, routeName } from '../../platform/http/route-registry.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import type { NotesCaller, Permission } from '../callers.ts';
import type { KeyAuthenticator } from './key-authenticator.ts';

// Every /notes/v1 route declares `config.access`: the permission its key needs, or `'public'` (no key at all).
declare module '../../platform/http/route-access.ts' {
  interface RouteAccessKinds {
    notes: { readonly notesPermission: Permission };
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    notesCaller?: NotesCaller;
  }
}

/** The permission a route's access demands of a Notes key; undefined for public routes. */
export function notesPermissionOf(access: RouteAccess | undefined): Permission | undefined {
  return access !== undefined && access !== 'public' && 'notesPermission' in access ? access.notesPermission : undefined;
}

/**
 * Authenticates every request of the Notes tree in onRequest and checks the route's permission
 * before the body is read. A route of this tree whose `config.access` is neither a notes permission
 * nor `'public'` fails at start-up (an undeclared one fails the platform's check), so no endpoint can
 * ship without an access policy this tree enforces.
 */
export function registerNotesAccess(app: AppInstance, authenticator: KeyAuthenticator) {
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (access !== undefined && access !== 'public' && notesPermissionOf(access) === undefined) {
      throw new Error(`${routeName(route)}: a Notes API route's config.access is a notes permission or 'public'`);
    }
    if (notesPermissionOf(access)) guarded(route);
  });

  const policy = bruteForcePolicy(app.vetflow.config);
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.access === 'public') return done();
    const header = request.headers['x-api-key'];
    // A key in the cache answers at once: no promise on the path of most requests.
    const cached = authenticator.cachedCaller(header);
    if (cached) {
      request.notesCaller = cached;
      return done();
    }
    authenticateOrCount(request, header).then(
      (caller) => {
        request.notesCaller = caller;
        done();
      },
      (error: Error) => done(error),
    );
  });

  async function authenticateOrCount(request: FastifyRequest, header: string | string[] | undefined): Promise<NotesCaller> {
    try {
      return await authenticator.authenticate(header);
    } catch (error) {
      // A wrong key counts toward its address's brute-force limit, as a wrong CRM token does; no
      // key at all is not an attempt to guess one. A valid key never meets the guard, so a block
      // (one address shared by every client behind an untrusted proxy) does not lock it out.
      const presented = header !== undefined && header !== '';
      if (presented && error instanceof AppError && error.code === 'INVALID_API_KEY') {
        await failAuthentication(request.ip, policy, error, app.vetflow.database.db);
      }
      throw error;
    }
  }

  // After the rate limit (a route-level onRequest hook), before the body is read: a key that keeps
  // calling what it may not call still spends its quota.
  // A callback hook: every Notes request passes it, and an async hook costs a promise each.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const access = notesPermissionOf(request.routeOptions.config.access);
    const caller = request.notesCaller;
    if (access && caller && !caller.permissions.includes(access)) {
      return done(
        new AppError('INSUFFICIENT_PERMISSIONS', `This operation needs the ${access} permission`, {
          required_permission: access,
          current_permission: caller.permissions.join(','),
        }),
      );
    }
    done(null, payload);
  });
}

/** The authenticated caller of a route that is not public. */
export function notesCallerOf(request: FastifyRequest): NotesCaller {
  if (!request.notesCaller) throw new Error('notesCallerOf called on a public route');
  // The cached caller is shared by every request of the key; the request's origin is this request's.
  return { ...request.notesCaller, request: requestOriginOf(request) };
}
