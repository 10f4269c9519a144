import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.ts';
import { awayFromMinuteBoundary } from '../helpers/notes.ts';
import { demoNotesKey, runCli, startServer } from '../helpers/processes.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-notes-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('operator CLI for clinics and keys', () => {
  const env = { DATA_DIR: dataDir };

  it('tenant create prints the tenant and its administrator key', async () => {
    const result = await runCli(['tenant', 'create', '--name', 'Clínica Bicho Feliz', '--quota-minutes', '600'], env);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const tenant = JSON.parse(result.stdout);
    expect(Object.keys(tenant).sort()).toEqual(['admin_key', 'admin_key_id', 'name', 'tenant_id']);
    expect(tenant).toMatchObject({ name: 'Clínica Bicho Feliz' });
    expect(tenant.tenant_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(tenant.admin_key).toMatch(/^vnk_[0-9a-f]{32}$/);

    const key = await runCli(['key', 'create', '--tenant', tenant.tenant_id, '--role', 'viewer', '--name', 'Recepção'], env);
    expect(key.code).toBe(0);
    const created = JSON.parse(key.stdout);
    expect(Object.keys(created).sort()).toEqual(['id', 'key', 'role']);
    expect(created).toMatchObject({ role: 'viewer' });
    expect(created.key).toMatch(/^vnk_[0-9a-f]{32}$/);
    expect(created.key).not.toBe(tenant.admin_key);
  });

  it.each([
    [['tenant', 'create'], /--name is required/],
    [['tenant', 'create', '--name', 'x', '--quota-minutes', 'lots'], /--quota-minutes/],
    [['key', 'create', '--tenant', 'nope', '--role', 'viewer', '--name', 'x'], /--tenant must be a UUID/],
    [['key', 'create', '--tenant', '00000000-0000-4000-8000-000000000000', '--role', 'viewer', '--name', 'x'], /no tenant/],
    [['key', 'create', '--tenant', '00000000-0000-4000-8000-000000000000', '--role', 'root', '--name', 'x'], /--role must be one of/],
    [
      ['key', 'create', '--tenant', '00000000-0000-4000-8000-000000000000', '--role', 'viewer', '--name', 'x', '--expires-at', 'soon'],
      /--expires-at/,
    ],
  ])('%j fails with one line', async (args, message) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});

describe('first start', () => {
  it('creates a demo clinic and hands its administrator key over once, never again', async () => {
    const fresh = mkdtempSync(path.join(tmpdir(), 'vetflow-demo-'));
    try {
      const first = await startServer({ DATA_DIR: fresh });
      await first.stop();
      // stdout is a pipe here: the key is in the first-run credentials file, nowhere in the output.
      const key = demoNotesKey(first);
      expect(first.output.join('\n')).not.toContain(key);

      const second = await startServer({ DATA_DIR: fresh });
      const response = await fetch(`${second.baseUrl}/notes/v1/api-keys`, { headers: { 'x-api-key': key ?? '' } });
      await second.stop();
      expect(response.status).toBe(200);
      expect(second.output.join('\n')).not.toMatch(/vnk_[0-9a-f]{32}/);
      expect(second.output.join('\n')).not.toMatch(/credentials_file/);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

const shared = await createTestDatabase();
afterAll(async () => shared.drop());

describe.runIf(shared.url)('rate limits across two server processes', () => {
  it('admit no more than the limit together', async () => {
    const env = { DATABASE_URL: shared.url ?? '', DATA_DIR: dataDir, RATE_LIMIT_VIEWER_PER_MINUTE: '10' };
    await shared.database.close();
    const tenant = JSON.parse((await runCli(['tenant', 'create', '--name', 'Duas'], env)).stdout);
    const viewer = JSON.parse(
      (await runCli(['key', 'create', '--tenant', tenant.tenant_id, '--role', 'viewer', '--name', 'v'], env)).stdout,
    );
    const servers = await Promise.all([startServer(env), startServer(env)]);
    try {
      await awayFromMinuteBoundary(15);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const server = servers[i % 2];
        const response = await fetch(`${server?.baseUrl}/notes/v1/api-keys`, { headers: { 'x-api-key': viewer.key } });
        statuses.push(response.status);
      }
      expect(statuses.filter((status) => status !== 429)).toHaveLength(10);
      expect(statuses.slice(10)).toEqual(Array(10).fill(429));
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  }, 90_000);
});
