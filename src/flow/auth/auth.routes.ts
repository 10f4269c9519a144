import { z } from 'zod';
import { errorResponses, TimestampSchema, toTimestamp, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import type { SessionView } from '../callers.ts';
import { sessionCaller } from '../request-context.ts';
import { PASSWORD_MAX_LENGTH } from '../users/password.ts';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from './session-cookie.ts';
import type { SessionsService } from './sessions.service.ts';

const LoginBody = z.object({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});

const SessionSchema = z
  .object({
    user: z.object({ id: UuidSchema, email: z.string(), role: z.enum(['administrator', 'agent']) }),
    workspace: z.object({ id: UuidSchema, name: z.string() }),
    expires_at: TimestampSchema,
  })
  .meta({ id: 'CrmSession', description: 'The logged-in CRM user.' });

function toSessionBody(view: SessionView) {
  return {
    user: { id: view.caller.userId, email: view.email, role: view.caller.role },
    workspace: { id: view.caller.workspaceId, name: view.workspaceName },
    expires_at: toTimestamp(view.expiresAt),
  };
}

/** CRM login sessions: `/api/auth/*` under /flow/v1. */
export async function authRoutes(app: AppInstance, { sessions }: { sessions: SessionsService }) {
  const { config } = app.vetflow;

  app.post(
    '/api/auth/login',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'login',
        summary: 'Log in to the CRM',
        description:
          'Sets the session cookie: `__Host-vetflow_session` (Secure, Path=/) over https, `vetflow_session` (Path=/flow/v1) ' +
          'over plain http; HttpOnly and SameSite=Strict either way. The session ends `expires_at`, or earlier after ' +
          '`CRM_SESSION_IDLE_MINUTES` (default 30) without a request. Wrong email or password, or a disabled user → 401 ' +
          'with the same body either way. Every attempt is counted before the password is checked, per address and per ' +
          'account (429 `TOO_MANY_FAILED_AUTHENTICATIONS` over the limit or inside the account backoff, with `Retry-After`); ' +
          'too many logins of one address or account at once → 429 `TOO_MANY_CONCURRENT_LOGINS`.',
        tags: ['CRM session'],
        body: LoginBody,
        response: { 200: SessionSchema, ...errorResponses(401, 422, 429) },
      },
    },
    async (request, reply) => {
      const { token, session } = await sessions.login({ ...request.body, ip: request.ip });
      const maxAge = Math.max(0, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
      setSessionCookie(reply, token, maxAge, config.PUBLIC_BASE_URL);
      return toSessionBody(session);
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'logout',
        summary: 'Log out',
        description: 'Ends the session of the cookie (if any) and clears the cookie. Always 204.',
        tags: ['CRM session'],
        // Public (always 204), yet it reads the session cookie when there is one.
        security: [{ CrmSession: [] }],
        response: { 204: z.null().describe('Logged out') },
      },
    },
    async (request, reply) => {
      const token = readSessionCookie(request, config.PUBLIC_BASE_URL);
      if (token) await sessions.logout(token);
      clearSessionCookie(reply, config.PUBLIC_BASE_URL);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/auth/logout-everywhere',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'logoutEverywhere',
        summary: 'Log out on every device',
        description: "Ends every session of the logged-in user, this one included, and clears this browser's cookie.",
        tags: ['CRM session'],
        response: { 204: z.null().describe('Every session ended'), ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      await sessions.logoutEverywhere(sessionCaller(request));
      clearSessionCookie(reply, config.PUBLIC_BASE_URL);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/auth/session',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'getSession',
        summary: 'Who am I',
        tags: ['CRM session'],
        response: { 200: SessionSchema, ...errorResponses(401) },
      },
    },
    async (request) => toSessionBody(request.crmSession!),
  );
}
