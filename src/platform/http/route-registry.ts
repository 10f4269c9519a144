import type { RouteOptions } from 'fastify';
import type { AppInstance, Platform, RouteRecord } from './types.ts';

// Routes whose declared access a guard has taken on (see `guarded`).
const guardedRoutes = new WeakSet<object>();

/** Called by an access guard for each route it enforces: a non-public route no guard took is refused at start-up. */
export function guarded(route: RouteOptions): void {
  guardedRoutes.add(route);
}

/**
 * Records every route in `platform.routes` (the one registry the access guards and the shared test
 * suites read) and refuses to start while any route declares no `config.access`, or declares a key,
 * permission or session that no guard enforces (a route registered outside its API tree). The check
 * runs once every plugin has registered its routes, so routes added by third-party plugins (Swagger
 * UI) can be declared public by the scope that registers them.
 */
export function registerRouteRegistry(app: AppInstance, platform: Platform): void {
  const optionsOf = new Map<RouteRecord, RouteOptions>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      // Read when asked: onRoute hooks of inner scopes run after this one and may still set config.
      const record: RouteRecord = {
        method,
        url: route.url,
        get config() {
          return (route.config ?? {}) as RouteRecord['config'];
        },
        get access() {
          return route.config?.access;
        },
      };
      platform.routes.push(record);
      optionsOf.set(record, route);
    }
  });
  app.addHook('onReady', async () => {
    const undeclared = platform.routes.filter((route) => route.access === undefined).map((route) => `${route.method} ${route.url}`);
    if (undeclared.length > 0) {
      throw new Error(
        `Every route needs config.access (a notes permission, a CRM scope, a CRM session role or 'public'); none declared by: ${undeclared.join(', ')}`,
      );
    }
    const unenforced = platform.routes
      .filter((route) => route.access !== 'public' && !guardedRoutes.has(optionsOf.get(route) as object))
      .map((route) => `${route.method} ${route.url}`);
    if (unenforced.length > 0) {
      throw new Error(
        `No access guard enforces the access these routes declare (register them inside their API tree): ${unenforced.join(', ')}`,
      );
    }
  });
}

/** Marks every route registered in `scope` as public (for plugins whose routes we do not write, like Swagger UI). */
export function declarePublic(scope: AppInstance): void {
  scope.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), access: 'public' };
  });
}

/** `METHOD url` of a route being registered, for start-up errors. */
export function routeName(route: Pick<RouteOptions, 'method' | 'url'>): string {
  return `${[route.method].flat().join(',')} ${route.url}`;
}
