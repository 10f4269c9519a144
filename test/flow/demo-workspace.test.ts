import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN_EMAIL, ensureDemoWorkspace } from '../../src/flow/demo-workspace.ts';
import { openPostgres } from '../../src/platform/db/client.ts';
import { workspaces } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeWorkspace } from '../helpers/crm.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { firstRunCredentials, startServer } from '../helpers/processes.ts';

const t = await createTestApp({ env: CRM_TEST_ENV });
const populated = await createTestApp({ env: CRM_TEST_ENV });

describe('ensureDemoWorkspace', () => {
  it('creates the demo workspace once, and its login works', async () => {
    const db = t.db.database.db;
    // Two processes starting at once on Postgres: exactly one creates it.
    const other = t.db.url ? openPostgres(t.db.url, 2) : undefined;
    const [first, racing] = await Promise.all([ensureDemoWorkspace(14, db), ensureDemoWorkspace(14, other?.db ?? db)]);
    await other?.close();
    const login = first ?? racing;
    expect([first, racing].filter(Boolean)).toHaveLength(1);
    expect(login).toMatchObject({ email: DEMO_ADMIN_EMAIL, workspaceId: expect.any(String) });
    expect(login!.password.length).toBeGreaterThanOrEqual(16);
    expect(await ensureDemoWorkspace(14, db)).toBeNull();

    const response = await t.app.inject({
      method: 'POST',
      url: '/flow/v1/api/auth/login',
      payload: { email: login!.email, password: login!.password },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ user: { role: 'administrator' }, workspace: { id: login!.workspaceId } });
  });

  it('never comes back, even once every workspace has been deleted', async () => {
    await t.db.database.db.delete(workspaces);
    expect(await ensureDemoWorkspace(14, t.db.database.db)).toBeNull();
  });

  it('leaves a database that already has workspaces alone', async () => {
    await makeWorkspace(populated);
    expect(await ensureDemoWorkspace(14, populated.db.database.db)).toBeNull();
  });
});

describe('the server on first start', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-demo-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('hands the demo login over once, outside the logs, and never again', async () => {
    const database = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL ? await createTestDatabase() : undefined;
    // On Postgres the demo is made only when asked for (test/platform/demo-data.test.ts).
    const env = {
      ...(database?.url ? { DATABASE_URL: database.url, DEMO_DATA: 'true' } : { DATA_DIR: dataDir }),
      PASSWORD_SCRYPT_LOG_N: '14',
    };
    try {
      const server = await startServer(env);
      await server.stop();
      const output = server.output.join('\n');
      // stdout is a pipe here: the login is in the first-run credentials file, never in the output.
      const credentials = firstRunCredentials(server)?.text ?? '';
      const password = /password +(\S+)/.exec(credentials)?.[1];
      expect(password, output).toBeDefined();
      expect(credentials).toContain(DEMO_ADMIN_EMAIL);
      expect(output).not.toContain(password!);

      const again = await startServer(env);
      const login = await fetch(`${again.baseUrl}/flow/v1/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: DEMO_ADMIN_EMAIL, password }),
      });
      expect(login.status).toBe(200);
      await again.stop();
      const later = again.output.join('\n');
      expect(later).not.toContain(password!);
      expect(later).not.toMatch(/credentials_file/);
    } finally {
      await database?.drop();
    }
  });
});
