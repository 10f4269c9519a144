import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually, testEnv } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';

const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database, 'Clínica A');
const other = await createClinicWithKeys(db.database, 'Clínica B');

async function createKey(key: string, payload: object) {
  return app.inject({ method: 'POST', url: '/notes/v1/api-keys', headers: as(key), payload });
}

describe('POST /api-keys', () => {
  it('creates a key, returns it once, and the key works with its role', async () => {
    const response = await createKey(clinic.admin, { name: 'Recepção', permissions: ['notes:read'] });
    expect(response.statusCode).toBe(201);
    const { status, data } = response.json();
    expect(status).toBe('success');
    expect(data.key).toMatch(/^vnk_[0-9a-f]{32}$/);
    expect(data).toMatchObject({ name: 'Recepção', role: 'viewer', permissions: ['notes:read'], status: 'active', expires_at: null });
    expect(data.prefix).toBe(data.key.slice(0, 8));
    expect(data.created_by_key_id).toBe(clinic.adminId);
    expect(data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const listed = await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(data.key) });
    expect(listed.statusCode).toBe(403);
  });

  it('derives the role from the permissions, or takes an explicit one', async () => {
    const editor = await createKey(clinic.admin, { name: 'e', permissions: ['notes:read', 'notes:write'] });
    expect(editor.json().data.role).toBe('editor');
    const admin = await createKey(clinic.admin, { name: 'a', permissions: ['notes:read'], role: 'administrator' });
    expect(admin.json().data).toMatchObject({ role: 'administrator', permissions: ['notes:read'] });
  });

  it("takes a role alone and gives the key that role's permissions", async () => {
    const expected = {
      viewer: ['notes:read'],
      editor: ['notes:read', 'notes:write'],
      administrator: ['notes:read', 'notes:write', 'keys:manage'],
    };
    for (const [role, permissions] of Object.entries(expected)) {
      const response = await createKey(clinic.admin, { name: `only ${role}`, role });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().data).toMatchObject({ role, permissions });
    }
    const viewer = (await createKey(clinic.admin, { name: 'x', role: 'viewer' })).json().data.key;
    expect((await app.inject({ method: 'GET', url: '/notes/v1/notes', headers: as(viewer) })).statusCode).toBe(200);
    const write = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/note_sections?section_id=${crypto.randomUUID()}`,
      headers: as(viewer),
    });
    expect(write.statusCode).toBe(403);
  });

  it('refuses a role alone whose permissions its creator lacks', async () => {
    const limited = (await createKey(clinic.admin, { name: 'reader admin', permissions: ['keys:manage', 'notes:read'] })).json().data.key;
    const response = await createKey(limited, { name: 'x', role: 'editor' });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('refuses permissions the role cannot hold', async () => {
    const response = await createKey(clinic.admin, { name: 'x', permissions: ['keys:manage'], role: 'viewer' });
    expect(response.statusCode).toBe(422);
    expect(response.json().details.field).toBe('permissions');
  });

  it('never gives a key more than its creator has', async () => {
    const limited = await createKey(clinic.admin, { name: 'limited admin', permissions: ['keys:manage', 'notes:read'] });
    const limitedKey = limited.json().data.key;
    const escalation = await createKey(limitedKey, { name: 'x', permissions: ['notes:write'] });
    expect(escalation.statusCode).toBe(403);
    expect(escalation.json()).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS', details: { required_permission: 'notes:write' } });
    const allowed = await createKey(limitedKey, { name: 'y', permissions: ['notes:read'] });
    expect(allowed.statusCode).toBe(201);
  });

  it("caps a new key's expiry at its creator's, says so, and lists which key created which", async () => {
    const creatorExpiry = new Date(Date.now() + 3_600_000);
    const creator = await createKey(clinic.admin, {
      name: 'expiring admin',
      permissions: ['keys:manage', 'notes:read'],
      expires_at: creatorExpiry.toISOString(),
    });
    const { key: creatorKey, id: creatorId } = creator.json().data;
    const cap = new Date(creator.json().data.expires_at).getTime();

    const forever = await createKey(creatorKey, { name: 'no expiry asked', permissions: ['notes:read'] });
    expect(forever.statusCode).toBe(201);
    expect(forever.json().data).toMatchObject({ expires_at_capped: true, created_by_key_id: creatorId });
    expect(new Date(forever.json().data.expires_at).getTime()).toBe(cap);

    const later = await createKey(creatorKey, {
      name: 'later asked',
      permissions: ['notes:read'],
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(later.json().data.expires_at_capped).toBe(true);
    expect(new Date(later.json().data.expires_at).getTime()).toBe(cap);

    const sooner = new Date(Date.now() + 600_000);
    const within = await createKey(creatorKey, { name: 'sooner asked', permissions: ['notes:read'], expires_at: sooner.toISOString() });
    expect(within.json().data.expires_at_capped).toBe(false);
    expect(new Date(within.json().data.expires_at).getTime()).toBe(Math.floor(sooner.getTime() / 1000) * 1000);

    // A key without an expiry passes none on.
    const unlimited = await createKey(clinic.admin, { name: 'plain', permissions: ['notes:read'] });
    expect(unlimited.json().data).toMatchObject({ expires_at: null, expires_at_capped: false });

    const listed = (await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(clinic.admin) })).json().data;
    const byId = new Map(listed.map((row: { id: string }) => [row.id, row]));
    expect(byId.get(forever.json().data.id)).toMatchObject({ created_by_key_id: creatorId });
    expect(byId.get(creatorId)).toMatchObject({ created_by_key_id: clinic.adminId });
  });

  it.each([
    [{ permissions: ['notes:read'] }, 'name'],
    [{ name: '', permissions: ['notes:read'] }, 'name'],
    [{ name: 'x'.repeat(101), permissions: ['notes:read'] }, 'name'],
    [{ name: 'x' }, 'permissions'],
    [{ name: 'x', permissions: [] }, 'permissions'],
    [{ name: 'x', permissions: ['notes:delete'] }, 'permissions.0'],
    [{ name: 'x', permissions: ['notes:read', 'notes:read'] }, 'permissions'],
    [{ name: 'x', permissions: ['notes:read'], expires_at: 'tomorrow' }, 'expires_at'],
    [{ name: 'x', permissions: ['notes:read'], expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    [{ name: 'x', permissions: ['notes:read'], role: 'owner' }, 'role'],
    [{ name: 'x', permissions: ['notes:read'], extra: true }, 'extra'],
  ])('refuses %o with 422 naming %s', async (payload, field) => {
    const response = await createKey(clinic.admin, payload);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('stops accepting a key once it expires', async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = await createKey(clinic.admin, { name: 'short', permissions: ['notes:read', 'keys:manage'], expires_at: soon });
    const key = created.json().data.key;
    const ok = await createKey(key, { name: 'z', permissions: ['notes:read'] });
    expect(ok.statusCode).toBe(201);
    await sleep(1700);
    const expired = await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(key) });
    expect(expired.statusCode).toBe(401);
  });
});

describe('GET /api-keys', () => {
  it("lists the clinic's keys without secrets or hashes", async () => {
    const response = await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(clinic.admin) });
    expect(response.statusCode).toBe(200);
    const { data, meta } = response.json();
    expect(meta.total).toBe(data.length);
    expect(data.length).toBeGreaterThanOrEqual(6);
    const text = response.body;
    expect(text).not.toContain(clinic.admin);
    expect(text).not.toMatch(/vnk_[0-9a-f]{32}/);
    expect(text).not.toMatch(/key_hash|keyHash/);
    expect(data.find((key: { id: string }) => key.id === clinic.adminId)).toMatchObject({
      role: 'administrator',
      prefix: clinic.admin.slice(0, 8),
    });
    expect(data.map((key: { status: string }) => key.status)).toEqual(expect.arrayContaining(['active', 'expired', 'revoked', 'disabled']));
    expect(data.some((key: { id: string }) => key.id === other.adminId)).toBe(false);
  });
});

describe('DELETE /api-keys/{id}', () => {
  it('revokes at once in this process, idempotently', async () => {
    const created = await createKey(clinic.admin, { name: 'temp', permissions: ['notes:read', 'keys:manage'] });
    const { id, key } = created.json().data;
    const revoked = await app.inject({ method: 'DELETE', url: `/notes/v1/api-keys/${id}`, headers: as(clinic.admin) });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().data).toMatchObject({ id, status: 'revoked' });
    const revokedAt = revoked.json().data.revoked_at;
    expect((await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(key) })).statusCode).toBe(401);
    const again = await app.inject({ method: 'DELETE', url: `/notes/v1/api-keys/${id}`, headers: as(clinic.admin) });
    expect(again.json().data.revoked_at).toBe(revokedAt);
  });

  it('takes effect on another app process over the same database within seconds', async () => {
    const created = await createKey(clinic.admin, { name: 'shared', permissions: ['notes:read', 'keys:manage'] });
    const { id, key } = created.json().data;
    const second = await buildApp(loadConfig(testEnv({ LOG_LEVEL: 'silent' })), { database: db.database });
    try {
      expect((await second.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(key) })).statusCode).toBe(200);
      await app.inject({ method: 'DELETE', url: `/notes/v1/api-keys/${id}`, headers: as(clinic.admin) });
      const started = Date.now();
      await eventually(
        async () => (await second.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(key) })).statusCode === 401,
        10_000,
        200,
      );
      expect(Date.now() - started).toBeLessThan(6_000);
    } finally {
      await second.close();
    }
  });

  it('revokes the keys a key created, and theirs, with it: at once here and on another app process', async () => {
    const admin = ['notes:read', 'keys:manage'];
    const parent = (await createKey(clinic.admin, { name: 'parent', permissions: admin })).json().data;
    const child = (await createKey(parent.key, { name: 'child', permissions: admin })).json().data;
    const grandchild = (await createKey(child.key, { name: 'grandchild', permissions: ['notes:read'] })).json().data;
    const sibling = (await createKey(clinic.admin, { name: 'not below it', permissions: ['notes:read'] })).json().data;
    expect(grandchild.created_by_key_id).toBe(child.id);
    const read = (target: typeof app, key: string) => target.inject({ method: 'GET', url: '/notes/v1/templates', headers: as(key) });
    const second = await buildApp(loadConfig(testEnv({ LOG_LEVEL: 'silent' })), { database: db.database });
    try {
      for (const key of [child.key, grandchild.key]) expect((await read(second, key)).statusCode).toBe(200);

      const revoked = await app.inject({ method: 'DELETE', url: `/notes/v1/api-keys/${parent.id}`, headers: as(clinic.admin) });
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json().data).toMatchObject({ id: parent.id, status: 'revoked' });
      expect([...revoked.json().data.revoked_key_ids].sort()).toEqual([parent.id, child.id, grandchild.id].sort());

      for (const key of [parent.key, child.key, grandchild.key]) expect((await read(app, key)).statusCode).toBe(401);
      const started = Date.now();
      for (const key of [child.key, grandchild.key])
        await eventually(async () => (await read(second, key)).statusCode === 401, 10_000, 100);
      expect(Date.now() - started).toBeLessThan(6_000);
      expect((await read(app, sibling.key)).statusCode).toBe(200);

      const listed = (await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(clinic.admin) })).json().data;
      for (const id of [child.id, grandchild.id]) expect(listed.find((key: { id: string }) => key.id === id).status).toBe('revoked');
      const again = await app.inject({ method: 'DELETE', url: `/notes/v1/api-keys/${parent.id}`, headers: as(clinic.admin) });
      expect(again.json().data).toMatchObject({ status: 'revoked', revoked_key_ids: [] });
    } finally {
      await second.close();
    }
  });

  it('revokes what is still active below a key revoked before, when it is revoked again', async () => {
    const admin = ['notes:read', 'keys:manage'];
    const parent = (await createKey(clinic.admin, { name: 'old parent', permissions: admin })).json().data;
    const child = (await createKey(parent.key, { name: 'left behind', permissions: ['notes:read'] })).json().data;
    // A revocation from before the tree was revoked with its root: the child kept working.
    await db.database.db.execute(sql`update notes_api_keys set revoked_at = now() where id = ${parent.id}`);
    const revoked = await app.inject({ method: 'DELETE', url: `/notes/v1/api-keys/${parent.id}`, headers: as(clinic.admin) });
    expect(revoked.json().data.revoked_key_ids).toEqual([child.id]);
    expect((await app.inject({ method: 'GET', url: '/notes/v1/templates', headers: as(child.key) })).statusCode).toBe(401);
  });

  it('answers 404 for an unknown key and 400 for a bad id', async () => {
    const missing = await app.inject({
      method: 'DELETE',
      url: '/notes/v1/api-keys/8d6f9a3e-1b2c-4d5e-8f90-a1b2c3d4e5f6',
      headers: as(clinic.admin),
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('API_KEY_NOT_FOUND');
    const bad = await app.inject({ method: 'DELETE', url: '/notes/v1/api-keys/123', headers: as(clinic.admin) });
    expect(bad.statusCode).toBe(400);
  });
});

describe('tenant isolation', () => {
  it("refuses another clinic's key on revoke and usage with 403 FORBIDDEN_TENANT", async () => {
    for (const [method, path] of [
      ['DELETE', `/notes/v1/api-keys/${clinic.viewerId}`],
      ['GET', `/notes/v1/api-keys/${clinic.viewerId}/usage`],
    ] as const) {
      const response = await app.inject({ method, url: path, headers: as(other.admin) });
      expect(response.statusCode, `${method} ${path}`).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN_TENANT');
    }
    const stillWorks = await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(clinic.viewer) });
    expect(stillWorks.statusCode).toBe(403); // viewer: forbidden by permission, but authenticated
  });
});

describe('GET /api-keys/{id}/usage', () => {
  it('counts requests per day and endpoint with status classes, and last_used_at', async () => {
    const created = await createKey(clinic.admin, { name: 'counted', permissions: ['notes:read', 'notes:write', 'keys:manage'] });
    const { id, key } = created.json().data;
    for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(key) });
    await app.inject({ method: 'DELETE', url: '/notes/v1/api-keys/00000000-0000-4000-8000-000000000000', headers: as(key) });
    await app.inject({ method: 'POST', url: '/notes/v1/api-keys', headers: as(key), payload: { name: '' } });

    const response = await app.inject({ method: 'GET', url: `/notes/v1/api-keys/${id}/usage?days=7`, headers: as(clinic.admin) });
    expect(response.statusCode).toBe(200);
    const usage = response.json().data;
    const today = new Date().toISOString().slice(0, 10);
    expect(usage).toMatchObject({ key_id: id, to: today, totals: { requests: 5, by_status: { '2xx': 3, '4xx': 2 } } });
    expect(usage.days).toEqual([{ date: today, requests: 5, by_status: { '2xx': 3, '4xx': 2 } }]);
    expect(usage.endpoints).toEqual([
      { endpoint: 'GET /api-keys', requests: 3, by_status: { '2xx': 3 } },
      expect.objectContaining({ requests: 1 }),
      expect.objectContaining({ requests: 1 }),
    ]);
    expect(usage.endpoints.map((entry: { endpoint: string }) => entry.endpoint)).toContain('DELETE /api-keys/:id');
    expect(usage.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('adds no database write to a request: counts wait in memory for the next flush', async () => {
    const rowsOf = async (keyId: string) => {
      const result = await db.database.db.execute(
        sql`select endpoint, status_class, count from notes_api_key_usage where key_id = ${keyId} order by endpoint`,
      );
      return (result as unknown as { rows: { endpoint: string; status_class: string; count: number }[] }).rows;
    };
    const lastUsedOf = async (keyId: string) => {
      const result = await db.database.db.execute(sql`select last_used_at from notes_api_keys where id = ${keyId}`);
      return (result as unknown as { rows: { last_used_at: unknown }[] }).rows[0]?.last_used_at;
    };
    // The recorder also flushes on a 5 s timer. Catch one tick (a probe key's count lands) so the
    // requests below run early in the next interval, where only a per-request write could show.
    const probe = (await createKey(clinic.admin, { name: 'probe', permissions: ['notes:read', 'keys:manage'] })).json().data;
    await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(probe.key) });
    await eventually(async () => (await rowsOf(probe.id)).length > 0, 10_000, 20);
    const ticked = Date.now();

    const { id, key } = (await createKey(clinic.admin, { name: 'silent', permissions: ['notes:read', 'keys:manage'] })).json().data;
    for (let i = 0; i < 20; i++) {
      expect((await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(key) })).statusCode).toBe(200);
    }
    const since = `${Date.now() - ticked} ms after a timed flush`;
    expect(await rowsOf(id), since).toEqual([]);
    expect(await lastUsedOf(id), since).toBeNull();
    expect(Date.now() - ticked, 'checked before the next timed flush').toBeLessThan(4_500);

    // Reading usage flushes first.
    const response = await app.inject({ method: 'GET', url: `/notes/v1/api-keys/${id}/usage`, headers: as(clinic.admin) });
    expect(response.json().data.totals).toEqual({ requests: 20, by_status: { '2xx': 20 } });
    expect(await rowsOf(id)).toEqual([{ endpoint: 'GET /api-keys', status_class: '2xx', count: 20 }]);
    expect(await lastUsedOf(id)).not.toBeNull();
  });

  it('takes a from/to window, and refuses mixing it with days', async () => {
    const window = await app.inject({
      method: 'GET',
      url: `/notes/v1/api-keys/${clinic.adminId}/usage?from=2020-01-01&to=2020-01-31`,
      headers: as(clinic.admin),
    });
    expect(window.statusCode).toBe(200);
    expect(window.json().data).toMatchObject({ from: '2020-01-01', to: '2020-01-31', totals: { requests: 0 }, days: [] });
    const mixed = await app.inject({
      method: 'GET',
      url: `/notes/v1/api-keys/${clinic.adminId}/usage?from=2020-01-01&days=3`,
      headers: as(clinic.admin),
    });
    expect(mixed.statusCode).toBe(422);
    const reversed = await app.inject({
      method: 'GET',
      url: `/notes/v1/api-keys/${clinic.adminId}/usage?from=2020-02-01&to=2020-01-01`,
      headers: as(clinic.admin),
    });
    expect(reversed.statusCode).toBe(422);
  });
});
