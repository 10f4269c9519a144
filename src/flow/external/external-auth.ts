import type { FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import { bruteForcePolicy, failAuthentication } from '../../platform/brute-force/brute-force.ts';
import { AppError } from '../../platform/errors.ts';
import type { RouteAccess } from '../../platform/http/route-access.ts';
import { guarded, routeName } from '../../platform/http/route-registry.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { crmKeyCache } from '../keys/key-cache.ts';
import { callerOfKey } from '../keys/key-caller.ts';
import { touchApiKey } from '../keys/keys.repo.ts';
import type { CrmScope } from '../keys/scopes.ts';
import { hashToken, isWellFormedToken } from '../keys/token.ts';
import '../request-context.ts';

/**
 * What an external route demands of its bearer key, declared as its `config.access`. Every
 * `/external/*` route must declare one.
 */
export interface CrmKeyAccess {
  /** The scope the key must hold; null for routes any valid key may call (`/external/me`). */
  readonly crmScope: CrmScope | null;
  /** True only where a workspace with suspended billing may still call (`/external/me`). */
  readonly allowSuspendedBilling?: boolean;
}

declare module '../../platform/http/route-access.ts' {
  interface RouteAccessKinds {
    crmKey: CrmKeyAccess;
  }
}

/** The key policy a route's access declares; undefined when it declares another kind. */
export function crmKeyAccessOf(access: RouteAccess | undefined): CrmKeyAccess | undefined {
  return access !== undefined && access !== 'public' && 'crmScope' in access ? access : undefined;
}

/**
 * Makes bearer authentication part of every route registered in `scope`: a route whose
 * `config.access` is not a CRM key policy (`{ crmScope }`) is refused at start-up, so no external
 * route can ship unauthenticated. Authentication runs in onRequest, before the body is parsed or validated.
 */
export function enforceExternalAuth(scope: AppInstance): void {
  scope.addHook('onRoute', (route: RouteOptions) => {
    if (!crmKeyAccessOf(route.config?.access)) {
      throw new Error(`${routeName(route)}: every external route needs config.access = { crmScope } (its key policy)`);
    }
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [authenticateKey, ...existing];
    guarded(route);
  });
}

// A successful request updates last_used_at at most once a minute per key and process: a write per
// request would cost more than the lookup itself.
const TOUCH_INTERVAL_MS = 60_000;
const lastTouched = new Map<string, number>();

const authenticateKey: onRequestHookHandler = async function authenticateKey(request) {
  const policy = crmKeyAccessOf(request.routeOptions.config.access)!;
  const { config, database } = request.server.vetflow;
  const db = database.db;

  // The brute-force guard meets failed credentials only: behind a proxy that is not trusted every
  // client shares one address, and a block must not lock out the integrators whose tokens are valid.
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

  const caller = callerOfKey(key);
  authorize(request, caller, policy);
  request.crmKey = caller;
  await touch(key.id, request);
};

function authorize(request: FastifyRequest, caller: ApiKeyCaller, policy: CrmKeyAccess): void {
  const pathWorkspace = (request.params as Record<string, string | undefined>).workspace_id;
  if (pathWorkspace !== undefined && pathWorkspace.toLowerCase() !== caller.workspaceId) {
    throw new AppError('WORKSPACE_MISMATCH', 'This key belongs to another workspace', { key_workspace_id: caller.workspaceId });
  }
  if (policy.crmScope && !caller.scopes.includes(policy.crmScope)) {
    throw new AppError('INSUFFICIENT_SCOPE', `This key lacks the ${policy.crmScope} scope`, {
      required_scope: policy.crmScope,
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
