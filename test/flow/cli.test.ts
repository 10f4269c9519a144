import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { openEmbedded, openPostgres } from '../../src/platform/db/client.ts';
import { eq } from '../../src/platform/db/drizzle.ts';
import { workspaces } from '../../src/platform/db/schema/index.ts';
import { testEnv } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { runCli } from '../helpers/processes.ts';

// The CRM operator commands through the real CLI process (their output shapes are a contract), on the
// database kind of this run: a Postgres test database, or an embedded data directory.

const pg = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL ? await createTestDatabase() : undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-crm-cli-'));
afterAll(async () => {
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});
const env = { ...(pg?.url ? { DATABASE_URL: pg.url } : { DATA_DIR: dataDir }), PASSWORD_SCRYPT_LOG_N: '14' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function ok(args: string[]): Promise<Record<string, unknown>> {
  const result = await runCli(args, env);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout);
}
async function fails(args: string[], message: RegExp) {
  const result = await runCli(args, env);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(message);
}

const state = { workspaceId: '', erpWorkspaceId: '', token: '', email: 'Owner@Clinic.example', password: 'correct horse battery' };

describe('CRM operator CLI', () => {
  it('workspace create prints {workspace_id, admin_user_id}', async () => {
    const out = await ok([
      'workspace',
      'create',
      '--name',
      'Clínica Boa Vista',
      '--admin-email',
      state.email,
      '--admin-password',
      state.password,
    ]);
    expect(Object.keys(out).sort()).toEqual(['admin_user_id', 'workspace_id']);
    expect(out.workspace_id).toMatch(UUID);
    expect(out.admin_user_id).toMatch(UUID);
    state.workspaceId = String(out.workspace_id);
  });

  it('workspace update prints {workspace_id, billing_status, contact_sync_policy, external_id_rekeying}', async () => {
    const id = state.workspaceId;
    expect(await ok(['workspace', 'update', '--workspace', id, '--sync-policy', 'erp'])).toEqual({
      workspace_id: id,
      billing_status: 'active',
      contact_sync_policy: 'erp',
      external_id_rekeying: 'replace',
    });
    expect(await ok(['workspace', 'update', '--workspace', id, '--billing', 'suspended', '--external-id-rekeying', 'refuse'])).toEqual({
      workspace_id: id,
      billing_status: 'suspended',
      contact_sync_policy: 'erp',
      external_id_rekeying: 'refuse',
    });
  });

  it('workspace create takes --sync-policy', async () => {
    const out = await ok([
      'workspace',
      'create',
      '--name',
      'ERP-led',
      '--admin-email',
      'erp@clinic.example',
      '--admin-password',
      'long enough',
      '--sync-policy',
      'erp',
    ]);
    state.erpWorkspaceId = String(out.workspace_id);
  });

  it('user create prints {user_id}', async () => {
    const out = await ok([
      'user',
      'create',
      '--workspace',
      state.workspaceId,
      '--email',
      'agent@clinic.example',
      '--password',
      'agent password',
      '--role',
      'agent',
    ]);
    expect(Object.keys(out)).toEqual(['user_id']);
    expect(out.user_id).toMatch(UUID);
  });

  it('crm-key create prints {id, token, workspace_id, scopes}', async () => {
    const out = await ok([
      'crm-key',
      'create',
      '--workspace',
      state.workspaceId,
      '--name',
      'ERP',
      '--scopes',
      'contacts:read,contacts:write',
    ]);
    expect(Object.keys(out).sort()).toEqual(['id', 'scopes', 'token', 'workspace_id']);
    expect(out).toEqual({
      id: expect.stringMatching(UUID),
      token: expect.stringMatching(/^crm_live_[0-9A-Za-z]{38}$/),
      workspace_id: state.workspaceId,
      scopes: ['contacts:read', 'contacts:write'],
    });
    state.token = String(out.token);
  });

  it('fails with one line for bad input', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['crm-key', 'create', '--workspace', state.workspaceId, '--name', 'x', '--scopes', 'contacts:read,contacts:all'],
        /Unknown scope "contacts:all"/,
      ],
      [
        [
          'user',
          'create',
          '--workspace',
          state.workspaceId,
          '--email',
          'owner@clinic.example',
          '--password',
          'whatever1',
          '--role',
          'agent',
        ],
        /already exists/,
      ],
      [['workspace', 'update', '--workspace', '6f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10', '--billing', 'active'], /Workspace not found/],
      [['workspace', 'update', '--workspace', state.workspaceId, '--billing', 'overdue'], /--billing must be one of active, suspended/],
      [['workspace', 'create', '--name', 'Short', '--admin-email', 'short@clinic.example', '--admin-password', 'short'], /password/],
    ];
    // Each run opens the database; the embedded data directory admits one process at a time.
    if (pg) await Promise.all(cases.map(([args, message]) => fails(args, message)));
    else for (const [args, message] of cases) await fails(args, message);
  });

  it('created what it printed: the admin logs in, the key authenticates', async () => {
    const database = pg?.url ? openPostgres(pg.url, 2) : await openEmbedded(path.join(dataDir, 'pglite'));
    const app = await buildApp(loadConfig(testEnv({ LOG_LEVEL: 'silent' })), { database });
    try {
      const login = await app.inject({
        method: 'POST',
        url: '/flow/v1/api/auth/login',
        payload: { email: state.email.toLowerCase(), password: state.password },
      });
      expect(login.statusCode).toBe(200);
      expect(login.json()).toMatchObject({
        user: { role: 'administrator' },
        workspace: { id: state.workspaceId, name: 'Clínica Boa Vista' },
      });
      const me = await app.inject({ method: 'GET', url: '/flow/v1/external/me', headers: { authorization: `Bearer ${state.token}` } });
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({
        workspace_id: state.workspaceId,
        key: { name: 'ERP', scopes: ['contacts:read', 'contacts:write'] },
      });
      const [erpLed] = await database.db.select().from(workspaces).where(eq(workspaces.id, state.erpWorkspaceId));
      expect(erpLed).toMatchObject({ name: 'ERP-led', billingStatus: 'active', contactSyncPolicy: 'erp' });
      // Nothing was created by the failed commands.
      expect(await database.db.select().from(workspaces)).toHaveLength(2);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
