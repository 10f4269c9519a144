import type { FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { assertNotBlockedCached, bruteForcePolicy, failAuthentication } from '../auth/brute-force.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { crmKeyCache } from '../keys/key-cache.ts';
import { touchApiKey } from '../keys/keys.repo.ts';
import type { CrmScope } from '../keys/scopes.ts';
import { hashToken, isWellFormedToken } from '../keys/token.ts';
import type { ExternalAuthPolicy } from '../request-context.ts';

// Declared beside the route option that carries it (request-context.ts), re-exported for callers here.
export type { ExternalAuthPolicy };

export interface ExternalRoute {
  readonly method: string;
  readonly url: string;
  readonly policy: ExternalAuthPolicy;
}

// Every external route registered per app (keyed by the app's platform object), so the shared auth
// test suite can run over all of them, including routes added later.
const registries = new WeakMap<object, ExternalRoute[]>();

export function externalRoutes(app: AppInstance): readonly ExternalRoute[] {
  return registries.get(app.vetflow) ?? [];
}

/**
 * Makes bearer authentication part of every route registered in `scope`: a route without a
 * `config.crmAuth` policy is refused at start-up, so no external route can ship unauthenticated.
 * Authentication runs in onRequest, before the body is parsed or validated.
 */
export function enforceExternalAuth(scope: AppInstance): void {
  const registry = registries.get(scope.vetflow) ?? [];
  registries.set(scope.vetflow, registry);
  scope.addHook('onRoute', (route: RouteOptions) => {
    const policy = route.config?.crmAuth;
    const methods = [route.method].flat().join(',');
    if (!policy) throw new Error(`${methods} ${route.url}: every external route needs config.crmAuth (its auth policy)`);
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [authenticateKey, ...existing];
    registry.push({ method: methods, url: route.url, policy });
  });
}

// A successful request updates last_used_at at most once a minute per key and process: a write per
// request would cost more than the lookup itself.
const TOUCH_INTERVAL_MS = 60_000;
const lastTouched = new Map<string, number>();

const authenticateKey: onRequestHookHandler = async function authenticateKey(request) {
  const policy = request.routeOptions.config.crmAuth!;
  const { config, database } = request.server.vetflow;
  const db = database.db;
  await assertNotBlockedCached(request.ip, db);

  const header = request.headers.authorization;
  // No credential at all is not an attempt to guess one: 401, not counted.
  if (!header) throw new AppError('INVALID_API_KEY', 'Missing Authorization: Bearer <token> header');
  const fail = (message: string) => failAuthentication(request.ip, bruteForcePolicy(config), new AppError('INVALID_API_KEY', message), db);

  // RFC 7235: the scheme name is case-insensitive.
  const match = /^bearer +(\S+) *$/i.exec(header);
  if (!match) return fail('The Authorization header must be "Bearer <token>"');
  const token = match[1]!;
  // The checksum refuses typos and forgeries without looking the key up.
  if (!isWellFormedToken(token)) return fail('Malformed API key');
  const key = await crmKeyCache(db).find(hashToken(token));
  if (!key) return fail('Invalid or revoked API key');

  const caller: ApiKeyCaller = {
    kind: 'api_key',
    keyId: key.id,
    keyName: key.name,
    prefix: key.prefix,
    scopes: key.scopes as CrmScope[],
    workspaceId: key.workspaceId,
    workspaceName: key.workspaceName,
    billingStatus: key.billingStatus,
  };
  authorize(request, caller, policy);
  request.crmKey = caller;
  await touch(key.id, request);
};

function authorize(request: FastifyRequest, caller: ApiKeyCaller, policy: ExternalAuthPolicy): void {
  const pathWorkspace = (request.params as Record<string, string | undefined>).workspace_id;
  if (pathWorkspace !== undefined && pathWorkspace.toLowerCase() !== caller.workspaceId) {
    throw new AppError('WORKSPACE_MISMATCH', 'This key belongs to another workspace', { key_workspace_id: caller.workspaceId });
  }
  if (policy.scope && !caller.scopes.includes(policy.scope)) {
    throw new AppError('INSUFFICIENT_SCOPE', `This key lacks the ${policy.scope} scope`, {
      required_scope: policy.scope,
      granted_scopes: caller.scopes,
    });
  }
  if (caller.billingStatus !== 'active' && !policy.allowSuspendedBilling) {
    throw new AppError('BILLING_INACTIVE', 'The billing of this workspace is suspended', { billing_status: caller.billingStatus });
  }
}

async function touch(keyId: string, request: FastifyRequest): Promise<void> {
  const now = Date.now();
  if (now - (lastTouched.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
  lastTouched.set(keyId, now);
  try {
    await touchApiKey(keyId, request.server.vetflow.database.db);
  } catch (error) {
    // Bookkeeping only: a failed update must not fail the request.
    request.log.warn({ err: error }, 'could not update last_used_at');
  }
}
