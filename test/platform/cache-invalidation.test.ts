import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppInstance, buildApp } from '../../src/app.ts';
import { CRM_KEY_INVALIDATION } from '../../src/flow/keys/key-cache.ts';
import { NOTES_KEY_INVALIDATION } from '../../src/notes/auth/api-key.ts';
import { type Database, DEFAULT_DATABASE_TIMEOUTS, openPostgres } from '../../src/platform/db/client.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createSecondApp, createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { databaseEnv } from '../helpers/database.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { startServer } from '../helpers/processes.ts';

// A revoked key must stop working in every process at once, not after a cache TTL: the revocation
// is announced with pg_notify as it commits and every process drops its cached keys then. The
// bound asserted is the issue's: within 1 s, in a second app and in a real second server process.

const t = await createTestApp({ env: CRM_TEST_ENV });
const clinic = await createClinicWithKeys(t.db.database, 'Clínica Revogação');
const home = await makeWorkspace(t);
const adminCookie = await loginCookie(t.app, home.admin.email, home.admin.password);
const onPostgres = t.db.url !== undefined;
const REVOCATION_BOUND_MS = 1_000;

async function newNotesKey(): Promise<{ id: string; key: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/notes/v1/api-keys',
    headers: { 'x-api-key': clinic.admin },
    payload: { name: 'revocable', permissions: ['notes:read', 'keys:manage'] },
  });
  return response.json().data;
}

const revokeNotesKey = (id: string) =>
  t.app.inject({ method: 'DELETE', url: `/notes/v1/api-keys/${id}`, headers: { 'x-api-key': clinic.admin } });
const revokeCrmKey = (id: string) =>
  t.app.inject({
    method: 'DELETE',
    url: `/flow/v1/api/workspaces/${home.workspaceId}/api-keys/${id}`,
    headers: { cookie: adminCookie },
  });

type Ask = () => Promise<number>;
const notesAsk =
  (target: AppInstance, key: string): Ask =>
  async () =>
    (await target.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: { 'x-api-key': key } })).statusCode;
const crmAsk =
  (target: AppInstance, token: string): Ask =>
  async () =>
    (await target.inject({ method: 'GET', url: '/flow/v1/external/me', headers: { authorization: `Bearer ${token}` } })).statusCode;

/** Milliseconds from now until `ask` answers 401 (polled every 20 ms, up to 5 s). */
async function msUntilRefused(ask: Ask): Promise<number> {
  const started = Date.now();
  await eventually(async () => (await ask()) === 401, 5_000, 20);
  return Date.now() - started;
}

describe('a revocation reaches another app over the same database', async () => {
  const second = await createSecondApp(t);

  it('Notes key: refused by the other app within 1 s, though it had just cached the key', async () => {
    const { id, key } = await newNotesKey();
    expect(await notesAsk(second.app, key)()).toBe(200);
    expect((await revokeNotesKey(id)).statusCode).toBe(200);
    expect(await msUntilRefused(notesAsk(second.app, key))).toBeLessThan(REVOCATION_BOUND_MS);
  });

  it('CRM key: refused by the other app within 1 s, though it had just cached the key', async () => {
    const { id, token } = await makeKey(t, home.workspaceId);
    expect(await crmAsk(second.app, token)()).toBe(200);
    expect((await revokeCrmKey(id)).statusCode).toBe(204);
    expect(await msUntilRefused(crmAsk(second.app, token))).toBeLessThan(REVOCATION_BOUND_MS);
  });
});

describe.runIf(onPostgres)('a revocation reaches a second server process', () => {
  it('refuses the revoked Notes and CRM keys there within 1 s', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-revocation-'));
    const server = await startServer({ ...databaseEnv(t.db), DATA_DIR: dataDir, ROLE: 'api', MIGRATE_ON_START: 'false' });
    try {
      const notes = await newNotesKey();
      const crm = await makeKey(t, home.workspaceId);
      const notesThere = async () => (await fetch(`${server.baseUrl}/notes/v1/api-keys`, { headers: { 'x-api-key': notes.key } })).status;
      const crmThere = async () =>
        (await fetch(`${server.baseUrl}/flow/v1/external/me`, { headers: { authorization: `Bearer ${crm.token}` } })).status;
      // Both are cached over there now.
      expect([await notesThere(), await crmThere()]).toEqual([200, 200]);

      expect((await revokeNotesKey(notes.id)).statusCode).toBe(200);
      const notesMs = await msUntilRefused(notesThere);
      expect((await revokeCrmKey(crm.id)).statusCode).toBe(204);
      const crmMs = await msUntilRefused(crmThere);
      console.info(`revocation seen by a second process after ${notesMs} ms (Notes key), ${crmMs} ms (CRM key)`);
      expect(notesMs).toBeLessThan(REVOCATION_BOUND_MS);
      expect(crmMs).toBeLessThan(REVOCATION_BOUND_MS);
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.runIf(onPostgres)('a lookup that overlaps the revocation', async () => {
  // A skipped suite is still collected: on the embedded database, set nothing up.
  if (!onPostgres) return;
  const target = new URL(t.db.url as string);
  const proxy = await HoldingProxy.start(target.hostname, Number(target.port || 5432));
  const proxied = new URL(target);
  proxied.host = `127.0.0.1:${proxy.port}`;
  // Lookups go through the proxy; behind a pooler the announcements still arrive past it.
  const database = openPostgres(proxied.toString(), 3, DEFAULT_DATABASE_TIMEOUTS, { directUrl: t.db.directUrl });
  const other = await buildApp({ ...t.config, LOG_LEVEL: 'silent' }, { database });
  afterAll(async () => {
    await other.close().catch(() => {});
    await database.close().catch(() => {});
    await proxy.close();
  });
  await eventually(async () => database.invalidation.live);

  /**
   * The other app looks the key up and reads it active, but the answer reaches it only after the
   * revocation has committed and been announced there: it must not keep that answer.
   */
  async function overlap(keyId: string, topic: string, ask: Ask, revoke: () => Promise<unknown>): Promise<number> {
    const announced = nextAnnouncement(database, topic);
    proxy.holdRepliesContaining(keyId);
    const overlapping = ask();
    await eventually(async () => proxy.holding);
    await revoke();
    await announced;
    proxy.release();
    await overlapping;
    return ask();
  }

  it('does not re-cache a revoked Notes key', async () => {
    const { id, key } = await newNotesKey();
    expect(await overlap(id, NOTES_KEY_INVALIDATION, notesAsk(other, key), () => revokeNotesKey(id))).toBe(401);
  });

  it('does not re-cache a revoked CRM key', async () => {
    const { id, token } = await makeKey(t, home.workspaceId);
    expect(await overlap(id, CRM_KEY_INVALIDATION, crmAsk(other, token), () => revokeCrmKey(id))).toBe(401);
  });

  it('survives losing its listening connection, and hears revocations again once it is back', async () => {
    const listenerPid = async () => {
      const result = await t.db.database.db.execute(
        sql`select pid from pg_stat_activity where application_name = 'vetflow-listen' and datname = current_database() order by backend_start desc`,
      );
      return (result as unknown as { rows: { pid: number }[] }).rows.map((row) => Number(row.pid));
    };
    const before = await listenerPid();
    expect(before.length).toBeGreaterThanOrEqual(2);
    await t.db.database.db.execute(sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'vetflow-listen'
      and datname = current_database()`);
    await eventually(async () => {
      const now = await listenerPid();
      return now.length >= 2 && now.every((pid) => !before.includes(pid)) && database.invalidation.live;
    });
    const { id, key } = await newNotesKey();
    expect(await notesAsk(other, key)()).toBe(200);
    expect((await revokeNotesKey(id)).statusCode).toBe(200);
    expect(await msUntilRefused(notesAsk(other, key))).toBeLessThan(REVOCATION_BOUND_MS);
  });
});

function nextAnnouncement(database: Database, topic: string): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = database.invalidation.onInvalidate(topic, () => {
      unsubscribe();
      resolve();
    });
  });
}

/**
 * A TCP proxy to Postgres that can hold back the server's replies on the one connection whose
 * reply carries a marker (the looked-up key's id), while every other connection, the listening
 * one included, keeps flowing: the lookup has run, its answer is late.
 */
class HoldingProxy {
  private server: Server | undefined;
  private marker: string | undefined;
  private held: { client: Socket; chunks: Buffer[] } | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  static async start(host: string, port: number): Promise<HoldingProxy> {
    const proxy = new HoldingProxy();
    proxy.server = createServer((client) => proxy.accept(client, host, port));
    await new Promise<void>((resolve) => proxy.server?.listen(0, '127.0.0.1', resolve));
    const address = proxy.server.address();
    if (address && typeof address !== 'string') proxy.port = address.port;
    return proxy;
  }

  get holding(): boolean {
    return this.held !== undefined;
  }

  holdRepliesContaining(marker: string): void {
    this.marker = marker;
  }

  release(): void {
    const held = this.held;
    this.held = undefined;
    this.marker = undefined;
    for (const chunk of held?.chunks ?? []) held?.client.write(chunk);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private accept(client: Socket, host: string, port: number): void {
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (this.held?.client === client) {
        this.held.chunks.push(chunk);
      } else if (this.marker && !this.held && chunk.includes(this.marker)) {
        this.held = { client, chunks: [chunk] };
      } else {
        client.write(chunk);
      }
    });
  }
}
