import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeWorkspace } from '../helpers/crm.ts';

// Two writes of one contact in one batch share their transaction's timestamp: the audit trail and
// the export must still list them in the order they were written.
const t = await createTestApp({ env: { ...CRM_TEST_ENV, CRM_RATE_LIMIT_PER_MINUTE: '100000', CRM_BATCH_ITEMS_PER_MINUTE: '1000' } });
const { app } = t;

// Ten contacts, each created then updated by the same batch: with a random tiebreaker every pair
// has an even chance to come out in the wrong order, so the old order passes 1 time in 1024.
const PAIRS = 10;

describe('audit entries of one batch', () => {
  it('lists a contact created then updated by one batch as updated, then created (newest first), and the export oldest first', async () => {
    const ws = await makeWorkspace(t);
    const key = await makeKey(t, ws.workspaceId);
    const items = Array.from({ length: PAIRS }, (_, i) => [
      { external_id: `order-${i}`, name: `Primeira ${i}`, phone: `11 9${String(7000_0000 + i).padStart(8, '0')}` },
      { external_id: `order-${i}`, name: `Segunda ${i}` },
    ]).flat();
    const batch = await app.inject({
      method: 'POST',
      url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts/batch`,
      headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ contacts: items }),
    });
    expect(batch.statusCode, batch.body).toBe(200);
    const results = batch.json().results as { status: number; contact_id: string; action: string }[];
    expect(results.map((result) => result.action)).toEqual(items.map((_, i) => (i % 2 === 0 ? 'created' : 'updated')));
    const ids = [...new Set(results.map((result) => result.contact_id))];
    expect(ids).toHaveLength(PAIRS);

    const cookie = await loginCookie(app, ws.admin.email, ws.admin.password);
    for (const id of ids) {
      const trail = await app.inject({
        method: 'GET',
        url: `/flow/v1/api/workspaces/${ws.workspaceId}/contacts/${id}/audit-logs`,
        headers: { cookie },
      });
      expect(trail.statusCode, trail.body).toBe(200);
      const entries = trail.json().data as { action: string; created_at: string }[];
      expect(entries.map((entry) => entry.action)).toEqual(['updated', 'created']);
      expect(entries[0]!.created_at).toBe(entries[1]!.created_at);

      const exported = await app.inject({
        method: 'GET',
        url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts/${id}/export`,
        headers: { authorization: `Bearer ${key.token}` },
      });
      expect(exported.statusCode, exported.body).toBe(200);
      expect((exported.json().audit_logs as { action: string }[]).map((entry) => entry.action)).toEqual(['created', 'updated']);
    }
  });
});
