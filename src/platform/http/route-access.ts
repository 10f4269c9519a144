/**
 * What a route demands of its caller, declared once in its route config: `config: { access }`.
 * `'public'` is the platform's own kind; each API tree adds the kinds it enforces by declaration
 * merging (`notesPermission`, `crmScope`, `crmSessionRole`) and refuses, in its scope, any other.
 */
export interface RouteAccessKinds {
  public: 'public';
}
export type RouteAccess = RouteAccessKinds[keyof RouteAccessKinds];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Required on every route: see RouteAccess. */
    access?: RouteAccess;
  }
}
