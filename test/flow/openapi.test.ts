import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';

const { app } = await createTestApp();
const doc = (await app.inject({ method: 'GET', url: '/flow/v1/openapi.json' })).json();

type Operation = { summary?: string; security?: Record<string, string[]>[]; responses: Record<string, unknown> };
const operation = (path: string, method: string): Operation => doc.paths[path]?.[method];

describe('the CRM access routes in /flow/v1/openapi.json', () => {
  const expected: [string, string, string | null, string[]][] = [
    ['/api/auth/login', 'post', null, ['200', '401', '422', '429']],
    ['/api/auth/logout', 'post', 'CrmSession', ['204']],
    ['/api/auth/session', 'get', 'CrmSession', ['200', '401']],
    ['/api/workspaces/{workspace_id}/api-keys', 'post', 'CrmSession', ['201', '400', '401', '403']],
    ['/api/workspaces/{workspace_id}/api-keys', 'get', 'CrmSession', ['200', '401', '403']],
    ['/api/workspaces/{workspace_id}/api-keys/{id}', 'delete', 'CrmSession', ['204', '401', '403', '404']],
    ['/external/me', 'get', 'CrmBearer', ['200', '401', '429']],
  ];

  it.each(expected)('%s %s has a summary, its security scheme and its statuses', (path, method, scheme, statuses) => {
    const op = operation(path, method);
    expect(op, `${method} ${path}`).toBeDefined();
    expect(op.summary).toBeTruthy();
    if (scheme) expect(op.security).toEqual([{ [scheme]: [] }]);
    // A public operation says so (`security: []`), as OpenAPI linters and client generators expect.
    else expect(op.security).toEqual([]);
    for (const status of statuses) expect(Object.keys(op.responses)).toContain(status);
  });

  it('documents the issued key, with its token, and the scope catalogue', () => {
    const created = JSON.stringify(operation('/api/workspaces/{workspace_id}/api-keys', 'post').responses['201']);
    for (const field of ['id', 'name', 'token', 'prefix', 'scopes', 'workspace_id', 'created_at']) expect(created).toContain(`"${field}"`);
    expect(JSON.stringify(doc)).toContain('satisfaction:write');
  });
});
