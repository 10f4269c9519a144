import type { FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import type { NotesCaller } from '../callers.ts';
import type { Permission } from '../keys/api-key.ts';
import type { KeyAuthenticator } from './key-authenticator.ts';

/** Every /notes/v1 route declares one: the permission it needs, or `public` (no key at all). */
export type NotesAccess = Permission | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    notesAccess?: NotesAccess;
  }
  interface FastifyRequest {
    notesCaller?: NotesCaller;
  }
}

/**
 * Authenticates every request of the Notes tree in onRequest and checks the route's permission
 * before the body is read. A route registered without `config.notesAccess` fails at start-up, so no
 * endpoint can ship without an access policy.
 */
export function registerNotesAccess(app: AppInstance, authenticator: KeyAuthenticator) {
  app.addHook('onRoute', (route) => {
    if (!route.config?.notesAccess) {
      throw new Error(`Notes API route ${route.method} ${route.url} declares no config.notesAccess`);
    }
  });

  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.notesAccess === 'public') return;
    request.notesCaller = await authenticator.authenticate(request.headers['x-api-key']);
  });

  // After the rate limit (a route-level onRequest hook), before the body is read: a key that keeps
  // calling what it may not call still spends its quota.
  app.addHook('preParsing', async (request) => {
    const access = request.routeOptions.config.notesAccess;
    const caller = request.notesCaller;
    if (access && access !== 'public' && caller && !caller.permissions.includes(access)) {
      throw new AppError('INSUFFICIENT_PERMISSIONS', `This operation needs the ${access} permission`, {
        required_permission: access,
        current_permission: caller.permissions.join(','),
      });
    }
  });
}

/** The authenticated caller of a route that is not public. */
export function notesCallerOf(request: FastifyRequest): NotesCaller {
  if (!request.notesCaller) throw new Error('notesCallerOf called on a public route');
  return request.notesCaller;
}
