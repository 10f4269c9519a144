import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { awayFromMinuteBoundary } from '../helpers/notes.ts';

const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_RATE_LIMIT_PER_MINUTE: '3' } });
const workspace = await makeWorkspace(t);

const me = (token: string) => t.app.inject({ method: 'GET', url: '/flow/v1/external/me', headers: { authorization: `Bearer ${token}` } });

describe('per-key rate limit of the external API', () => {
  it('admits the configured requests per minute per key, then 429 with the Notes API headers', async () => {
    await awayFromMinuteBoundary(10);
    const key = await makeKey(t, workspace.workspaceId);
    const responses = [];
    for (let i = 0; i < 4; i++) responses.push(await me(key.token));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 429]);
    expect(responses[0]?.headers).toMatchObject({ 'x-ratelimit-limit-minute': '3', 'x-ratelimit-remaining-minute': '2' });
    expect(Number(responses[0]?.headers['x-ratelimit-reset-minute'])).toBeGreaterThan(Date.now() / 1000);
    const limited = responses[3];
    expect(limited?.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited?.json()).toMatchObject({ error: 'too_many_requests', code: 'RATE_LIMIT_EXCEEDED', details: { limit: 3, remaining: 0 } });

    const other = await makeKey(t, workspace.workspaceId);
    expect((await me(other.token)).statusCode).toBe(200);
  });
});
