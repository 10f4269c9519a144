import type { FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import '../request-context.ts';
import { readSessionCookie } from './session-cookie.ts';
import { resolveSession } from './sessions.service.ts';

/** onRequest hook of CRM-side routes: a live session or 401, decided before the body is parsed. */
export async function requireSession(request: FastifyRequest): Promise<void> {
  const token = readSessionCookie(request);
  const session = token ? await resolveSession(token, request.server.vetflow.database.db) : undefined;
  if (!session) throw new AppError('UNAUTHORIZED', 'Log in first: no valid session');
  request.crmSession = session;
}
