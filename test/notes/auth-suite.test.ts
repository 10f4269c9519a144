import { describe, expect, it } from 'vitest';
import { notesPermissionOf } from '../../src/notes/auth/notes-access.ts';
import { createTestApp } from '../helpers/app.ts';
import { as, createClinicWithKeys, routeLabel as label, notesRoutes, PREFIX, sampleUrl as url } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// The shared auth suite: every route of the Notes API, as registered, against every way a key can
// be wrong, against its rate limit and against another clinic's key. A route added later joins by
// being registered.

// A high limit: this file sends many wrong keys from one address on purpose (brute force has its
// own file, test/flow/brute-force.test.ts).
const { app, db, config } = await createTestApp({ startWorkers: true, env: { AUTH_FAILURE_LIMIT: '100000' } });
const keys = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra clínica');
await app.ready();

const routes = notesRoutes(app);

describe('Notes API auth suite', () => {
  it('covers the routes that exist, each with an access policy', () => {
    expect(routes.length).toBeGreaterThanOrEqual(4);
    for (const route of routes) expect(route.access, label(route)).toBeTruthy();
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
    for (const route of routes.filter((candidate) => candidate.access !== 'public')) {
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
    const guarded = routes.filter(
      (route) => notesPermissionOf(route.access) === 'notes:write' || notesPermissionOf(route.access) === 'keys:manage',
    );
    expect(guarded.length).toBeGreaterThan(0);
    for (const route of guarded) {
      const response = await app.inject({ method: route.method as 'GET', url: url(route.url), headers: { 'x-api-key': keys.viewer } });
      expect(response.statusCode, label(route)).toBe(403);
      expect(response.json()).toMatchObject({
        error: 'forbidden',
        code: 'INSUFFICIENT_PERMISSIONS',
        details: { required_permission: notesPermissionOf(route.access), current_permission: 'notes:read' },
      });
    }
  });

  it('refuses an editor on key management', async () => {
    const managed = routes.filter((route) => notesPermissionOf(route.access) === 'keys:manage');
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

  it('rate-limits every route except GET /notes/{id}/status', async () => {
    const unlimited = `GET ${PREFIX}/notes/:id/status`;
    expect(routes.map(label)).toContain(unlimited);
    // An administrator key passes authentication (which runs first) on every route, so each request
    // reaches the limiter whatever the route answers after it.
    for (const route of routes) {
      const response = await app.inject({ method: route.method as 'GET', url: url(route.url), headers: { 'x-api-key': keys.admin } });
      expect(response.statusCode, label(route)).not.toBe(401);
      if (label(route) === unlimited) expect(response.headers, label(route)).not.toHaveProperty('x-ratelimit-limit-minute');
      else expect(response.headers['x-ratelimit-limit-minute'], label(route)).toBe(String(config.RATE_LIMIT_ADMINISTRATOR_PER_MINUTE));
    }
  });
});

// One resource of each kind, owned by the first clinic; the other clinic's administrator (every
// permission) asks for each of them on every route that names one.
const noteId = await uploadNote(app, keys.editor, { name: 'Tenant', external_id: 'TENANT-1' });
await waitUntilSettled(app, keys.viewer, noteId);
const sectionId: string = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${noteId}`, headers: as(keys.viewer) })).json().data
  .note_sections[0].id;
const webhookId: string = (
  await app.inject({
    method: 'POST',
    url: `${PREFIX}/webhooks`,
    headers: as(keys.admin),
    payload: { url: 'http://127.0.0.1:9/tenant', events: ['note.completed'] },
  })
).json().id;
const templateId: string = (
  await app.inject({
    method: 'POST',
    url: `${PREFIX}/templates`,
    headers: as(keys.admin),
    payload: {
      slug: 'tenant',
      name: 'Tenant',
      sections: [
        { label: 'nota', title: 'Nota', includes: ['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'observations', 'follow_up'] },
      ],
    },
  })
).json().data.id;
const deliveryId: string = (
  await app.inject({ method: 'POST', url: `${PREFIX}/webhooks/${webhookId}/test`, headers: as(keys.admin) })
).json().data.id;

describe('Notes API tenant isolation', () => {
  // Path parameters, by the collection they follow.
  const owned: Record<string, string> = {
    'api-keys': keys.viewerId,
    notes: noteId,
    webhooks: webhookId,
    deliveries: deliveryId,
    templates: templateId,
    parts: '1',
  };
  const ownedUrl = (path: string) =>
    path.replace(/([a-z_-]+)\/:[A-Za-z_]+/g, (_, collection: string) => {
      const id = owned[collection];
      if (!id) throw new Error(`no resource of the first clinic for /${collection}/:param in ${path}`);
      return `${collection}/${id}`;
    });
  // Routes that name a resource outside the path, and bodies some routes need to pass validation.
  const extras: Record<string, { query?: string; payload?: object }> = {
    [`POST ${PREFIX}/transcripts/retry`]: { payload: { note_id: noteId } },
    [`PATCH ${PREFIX}/note_sections`]: { query: `?section_id=${sectionId}`, payload: { title: 't', content: 'c', order: '1' } },
    [`PATCH ${PREFIX}/webhooks/:id`]: { payload: { description: 'taken over' } },
    [`POST ${PREFIX}/notes/:id/sign`]: { payload: { signed_by: { name: 'Outra', license: 'CRMV-SP 1' }, acknowledge_flags: true } },
    [`POST ${PREFIX}/notes/:id/amendments`]: {
      payload: { section_id: sectionId, content: 'c', reason: 'r', signed_by: { name: 'Outra', license: 'CRMV-SP 1' } },
    },
    [`PATCH ${PREFIX}/templates/:id`]: { payload: { name: 'taken over' } },
    [`POST ${PREFIX}/notes/:id/complete`]: { payload: { parts: 1 } },
    [`PUT ${PREFIX}/notes/:id/plan`]: { payload: { medications: [], exams: [], vaccines: [], follow_ups: [] } },
  };
  // Query and body fields that are ids but name nothing of another clinic (a filter on the caller's own notes).
  const notTenantReferences = new Set(['external_id']);
  const tenantScoped = routes.filter((route) => route.url.includes('/:') || extras[label(route)]?.query || extras[label(route)]?.payload);

  it('knows every route that takes an id outside its path', async () => {
    const document = (await app.inject({ method: 'GET', url: `${PREFIX}/openapi.json` })).json();
    const isId = (name: string) => (name === 'id' || name.endsWith('_id')) && !notTenantReferences.has(name);
    const schemaOf = (schema: { $ref?: string; properties?: object }) =>
      schema.$ref ? document.components.schemas[schema.$ref.split('/').pop() ?? ''] : schema;
    const takingIds: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        const inQuery = (operation.parameters ?? []).some((parameter: any) => parameter.in === 'query' && isId(parameter.name));
        const bodies = Object.values<any>(operation.requestBody?.content ?? {}).map((content) => schemaOf(content.schema));
        const inBody = bodies.some((schema) => Object.keys(schema?.properties ?? {}).some(isId));
        if (inQuery || inBody) takingIds.push(`${method.toUpperCase()} ${PREFIX}${path.replace(/\{(\w+)\}/g, ':$1')}`);
      }
    }
    expect(takingIds).toContain(`POST ${PREFIX}/transcripts/retry`);
    for (const route of takingIds) expect(extras[route], route).toBeDefined();
  });

  it("refuses another clinic's key with 403 FORBIDDEN_TENANT on every route that names a resource", async () => {
    expect(tenantScoped.map(label)).toEqual(
      expect.arrayContaining([
        `POST ${PREFIX}/transcripts/retry`,
        `PATCH ${PREFIX}/note_sections`,
        `POST ${PREFIX}/notes/:id/sign`,
        `POST ${PREFIX}/notes/:id/amendments`,
        `GET ${PREFIX}/notes/:id/amendments`,
        `GET ${PREFIX}/notes/:id/history`,
        `GET ${PREFIX}/notes/:id/audio`,
      ]),
    );
    for (const route of tenantScoped) {
      const extra = extras[label(route)];
      const response = await app.inject({
        method: route.method as 'GET',
        url: `${ownedUrl(route.url)}${extra?.query ?? ''}`,
        headers: as(other.admin),
        ...(extra?.payload ? { payload: extra.payload } : {}),
      });
      expect(response.statusCode, `${label(route)}: ${response.body}`).toBe(403);
      expect(response.json().code, label(route)).toBe('FORBIDDEN_TENANT');
    }
    // The first clinic still has everything, unchanged (the note unsigned); its viewer key was not revoked.
    const note = await app.inject({ method: 'GET', url: `${PREFIX}/notes/${noteId}`, headers: as(keys.admin) });
    expect(note.json().data).toMatchObject({ record_status: 'draft', signature: null });
    for (const path of [`/notes/${noteId}`, `/webhooks/${webhookId}`, `/api-keys/${keys.viewerId}/usage`, `/templates/${templateId}`]) {
      const response = await app.inject({ method: 'GET', url: `${PREFIX}${path}`, headers: as(keys.admin) });
      expect(response.statusCode, path).toBe(200);
    }
    const webhook = await app.inject({ method: 'GET', url: `${PREFIX}/webhooks/${webhookId}`, headers: as(keys.admin) });
    expect(webhook.json().data.description).toBeNull();
    const template = await app.inject({ method: 'GET', url: `${PREFIX}/templates/${templateId}`, headers: as(keys.admin) });
    expect(template.json().data.name).toBe('Tenant');
    expect((await app.inject({ method: 'GET', url: `${PREFIX}/notes`, headers: as(keys.viewer) })).statusCode).toBe(200);
  });

  it("erases only the caller's clinic: another clinic's erasure of the same external id deletes nothing here", async () => {
    const erased = await app.inject({
      method: 'POST',
      url: `${PREFIX}/erasures`,
      headers: as(other.admin),
      payload: { external_id: 'TENANT-1', reason: 'Pedido do titular' },
    });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().data.notes_deleted).toBe(0);
    expect((await app.inject({ method: 'GET', url: `${PREFIX}/notes/${noteId}`, headers: as(keys.viewer) })).statusCode).toBe(200);
    // Each clinic's log shows its own entries only.
    const theirs = await app.inject({ method: 'GET', url: `${PREFIX}/erasures`, headers: as(other.admin) });
    expect(theirs.json().data.map((entry: { id: string }) => entry.id)).toEqual([erased.json().data.id]);
    const ours = await app.inject({ method: 'GET', url: `${PREFIX}/erasures`, headers: as(keys.admin) });
    expect(ours.json().meta.total).toBe(0);
  });
});
