import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN_EMAIL, ensureDemoWorkspace } from '../../src/flow/demo-workspace.ts';
import { ensureDemoClinic } from '../../src/notes/clinics/demo-clinic.ts';
import { openPostgres } from '../../src/platform/db/client.ts';
import { eq, sql } from '../../src/platform/db/drizzle.ts';
import { crmUsers, notesApiKeys } from '../../src/platform/db/schema/index.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV } from '../helpers/crm.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { demoNotesKey, firstRunCredentials, startServer } from '../helpers/processes.ts';

// No silent demo credentials in production (docs/privacy.md): the demo clinic and workspace are
// made on the first start of the embedded database, on Postgres only with DEMO_DATA=true, and their
// key and login stop working after 30 days. Run on each database kind.

const onPostgres = Boolean(process.env.TEST_DATABASE_URL || process.env.DATABASE_URL);
const DAY = 86_400_000;

describe('the first start', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-demo-rule-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.runIf(!onPostgres)('makes the demo clinic and workspace on the embedded database', async () => {
    const server = await startServer({ DATA_DIR: dataDir, PASSWORD_SCRYPT_LOG_N: '14' }, 180_000);
    await server.stop();
    // Handed over in the first-run credentials (a 0600 file: the test's stdout is not a terminal).
    expect(demoNotesKey(server)).toMatch(/^vnk_[0-9a-f]{32}$/);
    expect(firstRunCredentials(server)?.text).toContain(DEMO_ADMIN_EMAIL);
  });

  it.runIf(onPostgres)('makes nothing on Postgres without DEMO_DATA=true', async () => {
    const database = await createTestDatabase();
    try {
      const server = await startServer({ DATABASE_URL: database.url!, DATA_DIR: dataDir, DEMO_DATA: 'false', PASSWORD_SCRYPT_LOG_N: '14' });
      await server.stop();
      const output = server.output.join('\n');
      expect(output).toMatch(/vetflow started/);
      expect(output).not.toMatch(/vnk_[0-9a-f]{32}/);
      expect(output).not.toContain(DEMO_ADMIN_EMAIL);
      expect(firstRunCredentials(server)).toBeNull();
      const db = openPostgres(database.url!, 1);
      try {
        const counts = (await db.db.execute(
          sql`select (select count(*) from clinics)::int as clinics, (select count(*) from workspaces)::int as workspaces`,
        )) as unknown as { rows: { clinics: number; workspaces: number }[] };
        expect(counts.rows[0]).toEqual({ clinics: 0, workspaces: 0 });
      } finally {
        await db.close();
      }
    } finally {
      await database.drop();
    }
  });

  it.runIf(onPostgres)('makes them on Postgres with DEMO_DATA=true', async () => {
    const database = await createTestDatabase();
    try {
      const server = await startServer({ DATABASE_URL: database.url!, DATA_DIR: dataDir, DEMO_DATA: 'true', PASSWORD_SCRYPT_LOG_N: '14' });
      await server.stop();
      expect(demoNotesKey(server)).toMatch(/^vnk_[0-9a-f]{32}$/);
      expect(firstRunCredentials(server)?.text).toContain(DEMO_ADMIN_EMAIL);
    } finally {
      await database.drop();
    }
  });
});

describe('demo credentials', () => {
  it('expire after 30 days: the clinic key and the workspace login', async () => {
    const { app, db } = await createTestApp({ env: CRM_TEST_ENV });
    const database = db.database.db;
    const clinic = (await ensureDemoClinic(database))!;
    const login = (await ensureDemoWorkspace(14, database))!;
    const [key] = await database.select().from(notesApiKeys).where(eq(notesApiKeys.clinicId, clinic.clinicId));
    const [admin] = await database.select().from(crmUsers).where(eq(crmUsers.email, DEMO_ADMIN_EMAIL));
    for (const expiresAt of [key!.expiresAt, admin!.expiresAt]) {
      expect(Math.abs(expiresAt!.getTime() - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
    }

    const keyWorks = () => app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: { 'x-api-key': clinic.adminKey } });
    const logIn = () =>
      app.inject({ method: 'POST', url: '/flow/v1/api/auth/login', payload: { email: login.email, password: login.password } });
    expect((await keyWorks()).statusCode).toBe(200);
    const session = await logIn();
    expect(session.statusCode).toBe(200);
    const cookie = String(session.headers['set-cookie']).split(';')[0]!;
    const me = () => app.inject({ method: 'GET', url: `/flow/v1/api/workspaces/${login.workspaceId}/contacts`, headers: { cookie } });
    expect((await me()).statusCode).toBe(200);

    // 30 days later.
    await database
      .update(notesApiKeys)
      .set({ expiresAt: new Date(Date.now() - 1_000) })
      .where(eq(notesApiKeys.id, key!.id));
    await database
      .update(crmUsers)
      .set({ expiresAt: new Date(Date.now() - 1_000) })
      .where(eq(crmUsers.id, admin!.id));
    // Once this process's Notes key cache (3 s) has let the cached key go.
    await eventually(async () => (await keyWorks()).statusCode === 401);
    expect((await logIn()).statusCode).toBe(401);
    expect((await me()).statusCode).toBe(401);
  });
});
