import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorResponses } from '../../src/platform/http/schemas.ts';
import { createTestApp } from '../helpers/app.ts';

const { app } = await createTestApp();

// A route under each prefix, as the features will add them, to see where each one is published.
app.get(
  '/notes/v1/probe/:id',
  {
    config: { access: 'public' },
    schema: { params: z.object({ id: z.uuid() }), response: { 200: z.object({ id: z.uuid() }), ...errorResponses(401, 404) } },
  },
  async (request) => ({ id: request.params.id }),
);
app.get(
  '/flow/v1/external/probe',
  { config: { access: 'public' }, schema: { response: { 200: z.object({ ok: z.boolean() }) } } },
  async () => ({ ok: true }),
);

describe('OpenAPI documents', () => {
  it('publish the Notes API on its own base URL, generated from the zod schemas', async () => {
    const response = await app.inject({ method: 'GET', url: '/notes/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.title).toMatch(/Notes API/);
    expect(doc.servers).toEqual([{ url: 'http://vetflow.test/notes/v1' }]);
    expect(Object.keys(doc.paths)).toContain('/probe/{id}');
    expect(Object.keys(doc.paths)).toContain('/api-keys/{id}/usage');
    expect(Object.keys(doc.paths).some((path) => path.startsWith('/external'))).toBe(false);
    const operation = doc.paths['/probe/{id}'].get;
    expect(operation.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
    // 503 (database unreachable) is documented on every operation, with Retry-After.
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '401', '404', '503']);
    expect(operation.responses['503'].headers).toHaveProperty('Retry-After');
    expect(doc.info.description).toMatch(/SERVICE_UNAVAILABLE/);
    expect(doc.components.securitySchemes).toHaveProperty('NotesApiKey');
    expect(doc.components.securitySchemes).not.toHaveProperty('CrmBearer');
  });

  it('publish the CRM API separately', async () => {
    const response = await app.inject({ method: 'GET', url: '/flow/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.servers).toEqual([{ url: 'http://vetflow.test/flow/v1' }]);
    // The CRM features' own routes are published too; only /flow/v1 paths, re-based on its server.
    expect(Object.keys(doc.paths)).toContain('/external/probe');
    expect(Object.keys(doc.paths)).not.toContain('/probe/{id}');
    expect(Object.keys(doc.paths).every((path) => !path.startsWith('/flow/v1') && !path.startsWith('/notes/v1'))).toBe(true);
    expect(Object.keys(doc.paths).some((path) => path.startsWith('/api-keys'))).toBe(false);
    expect(doc.components.securitySchemes).toHaveProperty('CrmBearer');
  });

  it('serve a browsable reference of both at /docs', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('/notes/v1/openapi.json');
    expect(init.body).toContain('/flow/v1/openapi.json');
  });
});
