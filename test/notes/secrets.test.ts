import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys, routeLabel as label, notesRoutes, PREFIX, sampleUrl as url } from '../helpers/notes.ts';

const { app, db, logs } = await createTestApp({ env: { LOG_LEVEL: 'trace' } });
const clinic = await createClinicWithKeys(db.database);
await app.ready();

// Every Notes route as registered (as the auth suite enumerates them), ids filled with one sample.
const routes = notesRoutes(app);

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

  it('appears in no log line or response body on any Notes route, sent in headers or bodies', async () => {
    const canary = await newCanary();
    const from = logs.length;
    for (const route of routes) {
      const response = await sendEverywhere(route, canary, { inQuery: false });
      expect(response.statusCode, label(route)).not.toBe(401); // authenticated: the route itself answered
      expect(response.body, label(route)).not.toContain(canary);
    }
    const logText = logs.slice(from).join('\n');
    // The requests were logged (headers from an allowlist, so the key's header is simply absent).
    expect(logText).toContain('request completed');
    expect(logText).not.toContain(canary);
  });

  it('is not echoed in any response body when also sent in the query string', async () => {
    const canary = await newCanary();
    for (const route of routes) {
      const response = await sendEverywhere(route, canary, { inQuery: true });
      expect(response.statusCode, label(route)).not.toBe(401);
      expect(response.body, label(route)).not.toContain(canary);
    }
  });

  // The request serializer censors credentials in the URL (src/platform/logger.ts redactUrl).
  it('appears in no log line when sent in the query string', async () => {
    const canary = await newCanary();
    const from = logs.length;
    for (const route of routes) await sendEverywhere(route, canary, { inQuery: true });
    expect(logs.slice(from).join('\n')).not.toContain(canary);
  });
});

/** A fresh administrator key (every permission, so each route gets past authorisation). */
async function newCanary(): Promise<string> {
  const created = await app.inject({
    method: 'POST',
    url: `${PREFIX}/api-keys`,
    headers: { 'x-api-key': clinic.admin },
    payload: { name: 'route canary', permissions: ['notes:read', 'notes:write', 'keys:manage'] },
  });
  return created.json().data.key;
}

/** One request to `route` carrying `canary` as the key, and everywhere else a careless client might put it. */
function sendEverywhere(route: { method: string; url: string }, canary: string, { inQuery }: { inQuery: boolean }) {
  const query = inQuery ? `?${new URLSearchParams({ api_key: canary, key: canary, token: canary })}` : '';
  return app.inject({
    method: route.method as 'GET',
    url: `${url(route.url)}${query}`,
    headers: { 'x-api-key': canary, authorization: `Bearer ${canary}`, cookie: `session=${canary}` },
    ...(route.method === 'GET' ? {} : { payload: { api_key: canary, key: canary, token: canary, x_api_key: canary } }),
  });
}
