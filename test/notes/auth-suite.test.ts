import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';

// The shared auth suite: every route of the Notes API, as registered, against every way a key can
// be wrong. A route added later joins by being registered.

const { app, db } = await createTestApp();
const keys = await createClinicWithKeys(db.database);
await app.ready();

const PREFIX = '/notes/v1';
const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const routes = app.vetflow.routes.filter(
  (route) => route.url.startsWith(`${PREFIX}/`) && route.url !== `${PREFIX}/openapi.json` && route.method !== 'HEAD',
);
const url = (path: string) => path.replace(/:[A-Za-z_]+/g, SAMPLE_ID);
const label = (route: { method: string; url: string }) => `${route.method} ${route.url}`;

describe('Notes API auth suite', () => {
  it('covers the routes that exist, each with an access policy', () => {
    expect(routes.length).toBeGreaterThanOrEqual(4);
    for (const route of routes) expect(route.config.notesAccess, label(route)).toBeTruthy();
  });

  const wrongKeys: [string, Record<string, string>][] = [
    ['no key', {}],
    ['an empty key', { 'x-api-key': '' }],
    ['a malformed key', { 'x-api-key': 'not-a-key' }],
    ['a wrong prefix', { 'x-api-key': `vnx_${'a'.repeat(32)}` }],
    ['upper-case hex', { 'x-api-key': `vnk_${'A'.repeat(32)}` }],
    ['an unknown key', { 'x-api-key': `vnk_${'0'.repeat(32)}` }],
    ['an expired key', { 'x-api-key': keys.expired }],
    ['a revoked key', { 'x-api-key': keys.revoked }],
    ['a disabled key', { 'x-api-key': keys.disabled }],
    ['a key in the Authorization header', { authorization: `Bearer ${keys.admin}` }],
  ];

  it('answers every wrong key on every protected route with the same 401 body', async () => {
    for (const route of routes.filter((candidate) => candidate.config.notesAccess !== 'public')) {
      const bodies = new Set<string>();
      for (const [reason, headers] of wrongKeys) {
        const response = await app.inject({
          method: route.method as 'GET',
          url: url(route.url),
          headers: { ...headers, 'x-request-id': 'auth-suite' },
        });
        expect(response.statusCode, `${label(route)} with ${reason}`).toBe(401);
        bodies.add(response.body);
      }
      expect([...bodies], label(route)).toHaveLength(1);
      const body = JSON.parse([...bodies][0] ?? '{}');
      expect(body).toMatchObject({ error: 'unauthorized', code: 'INVALID_API_KEY', request_id: 'auth-suite' });
    }
  });

  it('refuses a viewer on every route that writes or manages keys, naming the permission', async () => {
    const guarded = routes.filter((route) => route.config.notesAccess === 'notes:write' || route.config.notesAccess === 'keys:manage');
    expect(guarded.length).toBeGreaterThan(0);
    for (const route of guarded) {
      const response = await app.inject({ method: route.method as 'GET', url: url(route.url), headers: { 'x-api-key': keys.viewer } });
      expect(response.statusCode, label(route)).toBe(403);
      expect(response.json()).toMatchObject({
        error: 'forbidden',
        code: 'INSUFFICIENT_PERMISSIONS',
        details: { required_permission: route.config.notesAccess, current_permission: 'notes:read' },
      });
    }
  });

  it('refuses an editor on key management', async () => {
    const managed = routes.filter((route) => route.config.notesAccess === 'keys:manage');
    expect(managed.length).toBeGreaterThanOrEqual(4);
    for (const route of managed) {
      const response = await app.inject({ method: route.method as 'GET', url: url(route.url), headers: { 'x-api-key': keys.editor } });
      expect(response.statusCode, label(route)).toBe(403);
      expect(response.json().details).toEqual({ required_permission: 'keys:manage', current_permission: 'notes:read,notes:write' });
    }
  });

  it('lets a key with the permission through to the route', async () => {
    const response = await app.inject({ method: 'GET', url: `${PREFIX}/api-keys`, headers: { 'x-api-key': keys.admin } });
    expect(response.statusCode).toBe(200);
  });
});
