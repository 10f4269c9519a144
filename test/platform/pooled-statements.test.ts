import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppInstance, buildApp } from '../../src/app.ts';
import { DEFAULT_DATABASE_TIMEOUTS, openPostgres } from '../../src/platform/db/client.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { StatementRecorder } from '../helpers/statement-recorder.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// With DATABASE_DIRECT_URL set, DATABASE_URL is a transaction-mode pooler: a statement prepared
// under a name on it fails as soon as the next use lands on another server session (42P05, 26000).
// A recorder on the wire in front of the pooled URL sees every Parse the app's pool and pg-boss's
// send while the hot paths run (key lookups, upload to completed, reads, the list's version, the
// contact upsert and batch, the rate-limit counters): none may carry a name. Without the direct
// URL the same paths keep their named (prepared once) statements, which shows the recorder sees them.

const t = await createTestApp({ env: CRM_TEST_ENV });
const onPostgres = t.db.url !== undefined;

async function appThrough(recorder: StatementRecorder, directUrl: string | undefined) {
  const database = openPostgres(recorder.url, 3, DEFAULT_DATABASE_TIMEOUTS, { directUrl });
  const errors: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) if (JSON.parse(line).level >= 50) errors.push(line);
      done();
    },
  });
  const app = await buildApp(t.config, { database, logger: createLogger(t.config, sink) });
  afterAll(async () => {
    await app.close().catch(() => {});
    await database.close().catch(() => {});
  });
  return { app, errors };
}

/** The hot paths of both APIs, each answered as it should be. */
async function exercise(app: AppInstance): Promise<void> {
  const clinic = await createClinicWithKeys(t.db.database, 'Clínica Pooler');
  const id = await uploadNote(app, clinic.admin, { name: 'Thor', gender: 'male' });
  expect(await waitUntilSettled(app, clinic.admin, id)).toBe('completed');
  for (const url of [`/notes/v1/notes/${id}`, `/notes/v1/notes/${id}/status`, '/notes/v1/notes', '/notes/v1/notes']) {
    const response = await app.inject({ method: 'GET', url, headers: as(clinic.viewer) });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  }
  const ws = await makeWorkspace(t);
  const key = await makeKey(t, ws.workspaceId);
  const contacts = `/flow/v1/external/workspaces/${ws.workspaceId}/contacts`;
  const headers = { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' };
  for (const phone of ['11 96000 0001', '11 96000 0001']) {
    const put = await app.inject({ method: 'PUT', url: contacts, headers, payload: { external_id: 'p-1', name: 'Ana', phone } });
    expect(put.statusCode, put.body).toBeLessThan(300);
  }
  for (let round = 0; round < 2; round++) {
    const batch = await app.inject({
      method: 'POST',
      url: `${contacts}/batch`,
      headers,
      payload: { contacts: [{ external_id: `b-${round}`, name: 'Bia', phone: `11 96000 010${round}` }] },
    });
    expect(batch.statusCode, batch.body).toBe(200);
  }
}

describe.runIf(onPostgres)('behind a transaction-mode pooler (DATABASE_DIRECT_URL set)', async () => {
  if (!onPostgres) return;
  const recorder = await StatementRecorder.inFrontOf(t.db.url!);
  afterAll(() => recorder.close());
  // Past the pooler: in the pooler CI stage the server itself, here the same server.
  const pooled = await appThrough(recorder, t.db.directUrl ?? t.db.url);
  await pooled.app.vetflow.jobs.startWorkers();

  it('sends no named statement through the pooled URL, and logs no error', async () => {
    await exercise(pooled.app);
    expect(recorder.parsed.length).toBeGreaterThan(20);
    expect(recorder.named).toEqual([]);
    expect(pooled.errors).toEqual([]);
  });
});

describe.runIf(onPostgres)('on Postgres itself (no DATABASE_DIRECT_URL)', async () => {
  if (!onPostgres) return;
  const recorder = await StatementRecorder.inFrontOf(t.db.directUrl ?? t.db.url!);
  afterAll(() => recorder.close());
  const direct = await appThrough(recorder, undefined);
  await direct.app.vetflow.jobs.startWorkers();

  it('keeps the hot statements prepared once under their names', async () => {
    await exercise(direct.app);
    const names = new Set(recorder.named.map((statement) => statement.name));
    for (const name of [
      'notes_key_by_hash',
      'note_status',
      'note_list_version',
      'crm_key_by_hash',
      'contact_upsert',
      'contact_batch_upsert',
    ]) {
      expect(names, name).toContain(name);
    }
  });
});
