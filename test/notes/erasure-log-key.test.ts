import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppInstance, buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { openPostgres } from '../../src/platform/db/client.ts';
import { eq, sql } from '../../src/platform/db/drizzle.ts';
import { noteErasures } from '../../src/platform/db/schema/index.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createTestApp, testEnv } from '../helpers/app.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { uploadNote } from '../helpers/uploads.ts';

// The erasure log keeps a keyed digest of each external id, not its plain SHA-256: without the key
// a guessed id tells nothing; with it (the server's, through ?external_id=), an id's entries are
// found, after a key rotation too.
const K1 = randomBytes(32).toString('base64');
const K2 = randomBytes(32).toString('hex');
const t = await createTestApp({ env: { ERASURE_LOG_KEY: K1 } });
const db = t.db.database.db;
const clinic = await createClinicWithKeys(t.db.database);

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** What an auditor holding the key computes for an id (docs/privacy.md). */
const keyed = (key: Buffer, externalId: string) => createHmac('sha256', key).update(sha256(externalId), 'utf8').digest('hex');
const keyOf = (text: string) => Buffer.from(text, /^[0-9a-f]{64}$/.test(text) ? 'hex' : 'base64');

/** Another server process on the same database, with its own erasure log settings. */
async function serverWith(env: Record<string, string>): Promise<AppInstance> {
  const config = loadConfig(testEnv({ DATA_DIR: t.config.DATA_DIR, ...env }));
  const database = t.db.url ? openPostgres(t.db.url, 3) : t.db.database;
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const app = await buildApp(config, { database, logger: createLogger(config, sink) });
  afterAll(async () => {
    await app.close().catch(() => {});
    if (database !== t.db.database) await database.close().catch(() => {});
  });
  return app;
}

const erase = async (app: AppInstance, externalId: string) => {
  const response = await app.inject({
    method: 'POST',
    url: `${PREFIX}/erasures`,
    headers: { 'x-api-key': clinic.admin },
    payload: { external_id: externalId, reason: 'Pedido do titular' },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data.id as string;
};
const lookUp = async (app: AppInstance, externalId: string) => {
  const response = await app.inject({
    method: 'GET',
    url: `${PREFIX}/erasures?external_id=${encodeURIComponent(externalId)}`,
    headers: { 'x-api-key': clinic.admin },
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().data as { id: string }[]).map((entry) => entry.id);
};
const rowOf = async (id: string) => (await db.select().from(noteErasures).where(eq(noteErasures.id, id)))[0]!;

describe('the erasure log’s external id digests', () => {
  it('keeps the HMAC of the id under ERASURE_LOG_KEY, not its SHA-256, and finds the id’s entries with the key', async () => {
    await uploadNote(t.app, clinic.admin, { name: 'Rex', external_id: 'PAC-1' });
    const id = await erase(t.app, 'PAC-1');
    const row = await rowOf(id);
    expect(row.externalIdHmac).not.toBe(sha256('PAC-1'));
    expect(row.externalIdHmac).toBe(keyed(keyOf(K1), 'PAC-1'));
    expect(row.externalIdSha256).toBeNull();
    // Nothing in the row is the plain hash of the id.
    expect(JSON.stringify(row)).not.toContain(sha256('PAC-1'));
    expect(await lookUp(t.app, 'PAC-1')).toEqual([id]);
    expect(await lookUp(t.app, 'PAC-2')).toEqual([]);
    const list = await t.app.inject({ method: 'GET', url: `${PREFIX}/erasures`, headers: { 'x-api-key': clinic.admin } });
    expect(list.json().data[0]).toMatchObject({ id, external_id_hmac: keyed(keyOf(K1), 'PAC-1') });
    expect(list.json().data[0]).not.toHaveProperty('external_id_sha256');
  });

  it('after a rotation (ERASURE_LOG_KEY_PREVIOUS set to the old key) still finds entries of the old key, and writes new ones under the new key', async () => {
    const before = await erase(t.app, 'PAC-ROT');
    const rotated = await serverWith({ ERASURE_LOG_KEY: K2, ERASURE_LOG_KEY_PREVIOUS: K1 });
    expect(await lookUp(rotated, 'PAC-ROT')).toEqual([before]);
    const after = await erase(rotated, 'PAC-ROT');
    expect((await rowOf(after)).externalIdHmac).toBe(keyed(keyOf(K2), 'PAC-ROT'));
    expect(await lookUp(rotated, 'PAC-ROT')).toEqual([after, before]);
    // Without the old key its entries are found no more: the digest is worth nothing without its key.
    const forgetful = await serverWith({ ERASURE_LOG_KEY: K2 });
    expect(await lookUp(forgetful, 'PAC-ROT')).toEqual([after]);
  });

  it('keys the entries written before the log was keyed (their plain SHA-256) when a server starts', async () => {
    const [legacy] = await db
      .insert(noteErasures)
      .values({
        clinicId: clinic.clinicId,
        kind: 'patient',
        externalIdSha256: sha256('PAC-OLD'),
        notesDeleted: 1,
        keyId: randomUUID(),
        reason: 'antes',
      })
      .returning();
    const upgraded = await serverWith({ ERASURE_LOG_KEY: K2, ERASURE_LOG_KEY_PREVIOUS: K1 });
    expect(await lookUp(upgraded, 'PAC-OLD')).toEqual([legacy!.id]);
    const row = await rowOf(legacy!.id);
    expect(row.externalIdSha256).toBeNull();
    expect(row.externalIdHmac).toBe(keyed(keyOf(K2), 'PAC-OLD'));
    const [plain] = (
      (await db.execute(sql`select count(*)::int as n from note_erasures where external_id_sha256 is not null`)) as unknown as {
        rows: { n: number }[];
      }
    ).rows;
    expect(plain!.n).toBe(0);
  });

  it('without ERASURE_LOG_KEY generates a key once, in the database, and a server given a key later still finds what it keyed', async () => {
    const zeroConfig = await serverWith({});
    const id = await erase(zeroConfig, 'PAC-ZERO');
    const [setting] = (
      (await db.execute(sql`select value ->> 'key' as key from app_settings where key = 'erasure_log_key'`)) as unknown as {
        rows: { key: string }[];
      }
    ).rows;
    const generated = Buffer.from(setting!.key, 'base64');
    expect(generated).toHaveLength(32);
    expect((await rowOf(id)).externalIdHmac).toBe(keyed(generated, 'PAC-ZERO'));
    expect((await rowOf(id)).externalIdHmac).not.toBe(sha256('PAC-ZERO'));
    expect(await lookUp(zeroConfig, 'PAC-ZERO')).toEqual([id]);
    const configured = await serverWith({ ERASURE_LOG_KEY: K1 });
    expect(await lookUp(configured, 'PAC-ZERO')).toEqual([id]);
  });
});
