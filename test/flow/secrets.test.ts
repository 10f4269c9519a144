import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/flow/callers.ts';
import { workspacesService } from '../../src/flow/operator/workspaces.service.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV } from '../helpers/crm.ts';

// Canary secrets go through every path that handles them (creation, login, failed login, issuance,
// use, revocation); none may appear in the logs, nor in any database column except as a hash.

const t = await createTestApp({ env: { ...CRM_TEST_ENV, LOG_LEVEL: 'trace' } });
const { app, logs } = t;
const db = t.db.database.db;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const PASSWORD = 'canary-Pa55word-7f3a9c';
const EMAIL = 'canary@clinic.example';

/** Every row of every table in our schemas (and pg-boss's), as JSON text. */
async function everyRow(): Promise<string> {
  const tables = (await db.execute(
    sql`select table_schema, table_name from information_schema.tables
        where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'`,
  )) as unknown as { rows: { table_schema: string; table_name: string }[] };
  const parts: string[] = [];
  for (const { table_schema, table_name } of tables.rows) {
    const rows = (await db.execute(
      sql`select row_to_json(t)::text as row from ${sql.identifier(table_schema)}.${sql.identifier(table_name)} t`,
    )) as unknown as { rows: { row: string }[] };
    parts.push(...rows.rows.map((row) => `${table_schema}.${table_name} ${row.row}`));
  }
  return parts.join('\n');
}

describe('secrets', () => {
  it('never reach the logs or the database in clear', async () => {
    const { workspace } = await workspacesService({ db, logN: 14 }).createWorkspace(OPERATOR, {
      name: 'Canary',
      adminEmail: EMAIL,
      adminPassword: PASSWORD,
    });

    await app.inject({ method: 'POST', url: '/flow/v1/api/auth/login', payload: { email: EMAIL, password: `${PASSWORD}-wrong` } });
    const login = await app.inject({ method: 'POST', url: '/flow/v1/api/auth/login', payload: { email: EMAIL, password: PASSWORD } });
    expect(login.statusCode).toBe(200);
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const sessionId = cookie.split('=')[1]!;

    const issued = await app.inject({
      method: 'POST',
      url: `/flow/v1/api/workspaces/${workspace.id}/api-keys`,
      headers: { cookie },
      payload: { name: 'canary key', scopes: ['contacts:read'] },
    });
    expect(issued.statusCode).toBe(201);
    const { token, id } = issued.json();
    const secretPart = token.slice(12);

    expect(
      (await app.inject({ method: 'GET', url: '/flow/v1/external/me', headers: { authorization: `Bearer ${token}` } })).statusCode,
    ).toBe(200);
    await app.inject({ method: 'GET', url: '/flow/v1/external/me', headers: { authorization: `bearer ${token}x` } });
    await app.inject({ method: 'GET', url: `/flow/v1/api/workspaces/${workspace.id}/api-keys`, headers: { cookie } });
    await app.inject({ method: 'DELETE', url: `/flow/v1/api/workspaces/${workspace.id}/api-keys/${id}`, headers: { cookie } });
    await app.inject({ method: 'GET', url: '/flow/v1/external/me', headers: { authorization: `Bearer ${token}` } });
    await app.inject({ method: 'POST', url: '/flow/v1/api/auth/logout', headers: { cookie } });

    const logText = logs.join('\n');
    expect(logs.length).toBeGreaterThan(10);
    for (const secret of [PASSWORD, secretPart, sessionId]) expect(logText).not.toContain(secret);

    const stored = await everyRow();
    expect(stored).toContain(workspace.id);
    for (const secret of [PASSWORD, secretPart, sessionId]) expect(stored).not.toContain(secret);
    // The key is stored as its SHA-256 (the session row is gone after logout).
    expect(stored).toContain(sha256(token));
    expect(stored).toMatch(/"password_hash":"scrypt\$14\$8\$1\$/);
  });
});
