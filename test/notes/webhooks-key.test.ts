import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { notesCommands } from '../../src/notes/notes.cli.ts';
import { insertEndpoint } from '../../src/notes/webhooks/endpoints.repo.ts';
import { keyIdOf, SecretBox, SecretUnreadableError } from '../../src/notes/webhooks/secrets.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createTestApp, eventually, testEnv } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { startReceiver } from './webhooks-receiver.ts';

// The key that encrypts webhook signing secrets at rest: where it comes from, and how it rotates.
const keyA = randomBytes(32);
const keyB = randomBytes(32);

const embedded = await createTestApp();

describe('on the embedded database without WEBHOOK_SECRET_KEY', () => {
  it('generates the key outside the database directory, readable by its owner only, and moves an old one there', async () => {
    const { app, config, db } = embedded;
    const clinic = await createClinicWithKeys(db.database);
    const dataDir = config.DATA_DIR;
    // A key left by an earlier version straight in DATA_DIR: it must keep opening what it sealed.
    const legacy = randomBytes(32);
    writeFileSync(path.join(dataDir, 'webhook-secret.key'), `${legacy.toString('base64')}\n`, { mode: 0o600 });
    const created = await app.inject({
      method: 'POST',
      url: '/notes/v1/webhooks',
      headers: as(clinic.admin),
      payload: { url: 'http://127.0.0.1:9/hooks', events: ['note.completed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const file = path.join(dataDir, 'keys', 'webhook-secret.key');
    expect(existsSync(path.join(dataDir, 'webhook-secret.key'))).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const [row] = (
      (await db.database.db.execute(
        sql`select secret_encrypted as s from webhook_endpoints where id = ${created.json().id}`,
      )) as unknown as {
        rows: { s: string }[];
      }
    ).rows;
    expect(row?.s.startsWith(`v2.${keyIdOf(legacy)}.`)).toBe(true);
  });
});

// DATABASE_URL decides the key policy; the test's own isolated database is what the app uses.
const t = await createTestApp({ env: { DATABASE_URL: 'postgres://vetflow@db.invalid:5432/vetflow' }, startWorkers: true });
const clinic = await createClinicWithKeys(t.db.database);

describe('with DATABASE_URL and no WEBHOOK_SECRET_KEY', () => {
  it('says so at start-up, naming the variable and how to make one', () => {
    const line = t.logs.map((text) => JSON.parse(text)).find((entry) => entry.variable === 'WEBHOOK_SECRET_KEY');
    expect(line).toMatchObject({ level: 50 });
    expect(line.msg).toMatch(/WEBHOOK_SECRET_KEY is not set/);
    expect(line.msg).toMatch(/openssl rand -base64 32/);
  });

  it('refuses to create a webhook endpoint with 503 WEBHOOK_KEY_MISSING, writing no key file', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/notes/v1/webhooks',
      headers: as(clinic.admin),
      payload: { url: 'http://127.0.0.1:9/hooks', events: ['note.completed'] },
    });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'WEBHOOK_KEY_MISSING' });
    expect(response.json().message).toMatch(/WEBHOOK_SECRET_KEY/);
    expect(response.json().message).not.toMatch(/DATA_DIR/); // the operator's remedy is in the log
    expect(existsSync(path.join(t.config.DATA_DIR, 'webhook-secret.key'))).toBe(false);
    expect(existsSync(path.join(t.config.DATA_DIR, 'keys'))).toBe(false);
    const rows = (await t.db.database.db.execute(sql`select count(*)::int as n from webhook_endpoints`)) as unknown as {
      rows: { n: number }[];
    };
    expect(rows.rows[0]?.n).toBe(0);
  });

  it('retries a delivery to an endpoint registered before, instead of sending it unsigned', async () => {
    // An endpoint from when the key was set (or from another server), sealed under some key.
    const receiver = await startReceiver();
    const id = randomUUID();
    await insertEndpoint(
      {
        id,
        clinicId: clinic.clinicId,
        url: receiver.url,
        events: ['note.completed'],
        secretEncrypted: new SecretBox(keyA).seal('whsec_x', id),
      },
      t.db.database.db,
    );
    const test = await t.app.inject({ method: 'POST', url: `/notes/v1/webhooks/${id}/test`, headers: as(clinic.admin) });
    expect(test.statusCode, test.body).toBe(202);
    const waiting = await eventually(async () => {
      const response = await t.app.inject({ method: 'GET', url: `/notes/v1/webhooks/${id}/deliveries`, headers: as(clinic.admin) });
      const [delivery] = response.json().data as { attempts: number; status: string; last_error: string | null }[];
      return delivery && delivery.attempts >= 1 && delivery.status !== 'delivering' ? delivery : undefined;
    });
    expect(waiting).toMatchObject({ status: 'pending', last_error: expect.stringMatching(/^WEBHOOK_KEY_MISSING/) });
    expect(receiver.received).toHaveLength(0);
  });

  it('keeps serving everything else: an uploaded note completes', async () => {
    const id = await uploadNote(t.app, clinic.editor, { name: 'Sem chave' });
    expect(await waitUntilSettled(t.app, clinic.viewer, id)).toBe('completed');
  });
});

const first = await createTestApp({ env: { WEBHOOK_SECRET_KEY: keyA.toString('base64') } });

describe('rotating the key', () => {
  it('seals with the key id, and after a rotation opens old secrets with WEBHOOK_SECRET_KEY_PREVIOUS', async () => {
    const clinic = await createClinicWithKeys(first.db.database);
    const receiver = await startReceiver();
    const hook = await first.app.inject({
      method: 'POST',
      url: '/notes/v1/webhooks',
      headers: as(clinic.admin),
      payload: { url: receiver.url, events: ['note.completed'] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const { id, secret } = hook.json() as { id: string; secret: string };

    // The same database, served by a process whose key was rotated: B is current, A previous.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-rotated-'));
    const config = loadConfig(
      testEnv({ DATA_DIR: dataDir, WEBHOOK_SECRET_KEY: keyB.toString('hex'), WEBHOOK_SECRET_KEY_PREVIOUS: keyA.toString('base64') }),
    );
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    const rotated = await buildApp(config, { database: first.db.database, logger: createLogger(config, quiet) });
    await rotated.vetflow.jobs.startWorkers();
    try {
      const test = await rotated.inject({ method: 'POST', url: `/notes/v1/webhooks/${id}/test`, headers: as(clinic.admin) });
      expect(test.statusCode, test.body).toBe(202);
      const [delivered] = await eventually(async () => (receiver.received.length ? receiver.received : undefined), 20_000);
      expect(() => new Webhook(secret).verify(delivered!.body, delivered!.headers as Record<string, string>)).not.toThrow();

      // A secret rotated now is sealed under the new key.
      const renewed = await rotated.inject({ method: 'POST', url: `/notes/v1/webhooks/${id}/rotate-secret`, headers: as(clinic.admin) });
      expect(renewed.statusCode, renewed.body).toBe(200);
      const [row] = (
        (await first.db.database.db.execute(sql`select secret_encrypted as s from webhook_endpoints where id = ${id}`)) as unknown as {
          rows: { s: string }[];
        }
      ).rows;
      expect(row?.s.startsWith(`v2.${keyIdOf(keyB)}.`)).toBe(true);

      // Re-encryption of what is left under A (another endpoint), after which B alone opens everything.
      const other = await first.app.inject({
        method: 'POST',
        url: '/notes/v1/webhooks',
        headers: as(clinic.admin),
        payload: { url: receiver.url, events: ['note.failed'] },
      });
      const reseal = notesCommands.find((command) => command.name === 'webhooks reseal-secrets')!;
      const cli = { config, database: first.db.database, logger: createLogger(config, quiet) };
      expect(await reseal.run(cli, {})).toEqual({ key_id: keyIdOf(keyB), endpoints: 2, resealed: 2, unreadable: [] });
      expect(await reseal.run(cli, {})).toMatchObject({ resealed: 0, unreadable: [] }); // again: nothing left to do
      const sealed = (
        (await first.db.database.db.execute(
          sql`select id, secret_encrypted as s, previous_secret_encrypted as p from webhook_endpoints`,
        )) as unknown as { rows: { id: string; s: string; p: string | null }[] }
      ).rows;
      const onlyB = new SecretBox(keyB);
      for (const endpoint of sealed) {
        expect(endpoint.s.startsWith(`v2.${keyIdOf(keyB)}.`)).toBe(true);
        onlyB.open(endpoint.s, endpoint.id);
        if (endpoint.p) onlyB.open(endpoint.p, endpoint.id);
      }
      expect(onlyB.open(sealed.find((endpoint) => endpoint.id === other.json().id)!.s, other.json().id)).toBe(other.json().secret);
    } finally {
      await rotated.close().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);

  it('opens the first format (no key id) with any configured key, and names a missing key', () => {
    // `v1.<iv>.<tag>.<data>`, as stored before key ids.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyA, iv);
    cipher.setAAD(Buffer.from('endpoint-1'));
    const data = Buffer.concat([cipher.update('whsec_old', 'utf8'), cipher.final()]);
    const v1 = ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.');
    expect(new SecretBox(keyA).open(v1, 'endpoint-1')).toBe('whsec_old');
    expect(new SecretBox(keyB, [keyA]).open(v1, 'endpoint-1')).toBe('whsec_old');
    expect(() => new SecretBox(keyB).open(v1, 'endpoint-1')).toThrow(SecretUnreadableError);

    const v2 = new SecretBox(keyA).seal('whsec_new', 'endpoint-1');
    expect(v2.split('.')).toHaveLength(5);
    expect(new SecretBox(keyB, [keyA]).open(v2, 'endpoint-1')).toBe('whsec_new');
    expect(() => new SecretBox(keyB).open(v2, 'endpoint-1')).toThrow(new RegExp(`key ${keyIdOf(keyA)}`));
    expect(new SecretBox(keyB, [keyA]).isStale(v2)).toBe(true);
    expect(new SecretBox(keyA).isStale(v2)).toBe(false);
  });
});
