import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';

const { app, db, logs } = await createTestApp({ env: { LOG_LEVEL: 'trace' } });
const clinic = await createClinicWithKeys(db.database);

async function everyRowAsText(): Promise<string> {
  const tables = await db.database.db.execute(sql`select tablename from pg_tables where schemaname in ('public', 'pgboss')`);
  const names = (tables as unknown as { rows: { tablename: string }[] }).rows.map((row) => row.tablename);
  const dumps: string[] = [];
  for (const name of names) {
    const schema = ['job', 'queue', 'schedule', 'version', 'subscription', 'archive'].includes(name) ? 'pgboss' : 'public';
    const rows = await db.database.db.execute(sql.raw(`select t::text as row from "${schema}"."${name}" t`)).catch(() => ({ rows: [] }));
    dumps.push(...(rows as unknown as { rows: { row: string }[] }).rows.map((row) => row.row));
  }
  return dumps.join('\n');
}

describe('a canary key', () => {
  it('appears nowhere in logs or the database, whatever it was used for', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/notes/v1/api-keys',
      headers: { 'x-api-key': clinic.admin },
      payload: { name: 'canary', permissions: ['notes:read', 'keys:manage'] },
    });
    const canary: string = created.json().data.key;
    const headers = { 'x-api-key': canary, authorization: `Bearer ${canary}`, cookie: `session=${canary}` };
    await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers });
    await app.inject({ method: 'POST', url: '/notes/v1/api-keys', headers, payload: { name: 'x', permissions: ['notes:write'] } });
    await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: { 'x-api-key': `${canary.slice(0, -1)}0` } });
    await app.inject({ method: 'GET', url: `/notes/v1/nowhere?key=${canary.slice(4)}` });
    await app.inject({ method: 'GET', url: `/notes/v1/api-keys/${created.json().data.id}/usage`, headers });

    const logText = logs.join('\n');
    expect(logs.length).toBeGreaterThan(10);
    expect(logText).toContain('[redacted]');
    expect(logText).not.toContain(canary);
    expect(logText).not.toContain(clinic.admin);

    const dbText = await everyRowAsText();
    const hash = createHash('sha256').update(canary).digest('hex');
    expect(dbText).toContain(hash); // the dump does see the keys table
    expect(dbText).not.toContain(canary);
    expect(dbText).not.toContain(canary.slice(4));
  });
});
