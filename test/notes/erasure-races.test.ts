import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eq } from '../../src/platform/db/drizzle.ts';
import { notes } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { raceBehindLock, waitForLockWaiters } from '../helpers/database.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { fixture, multipartBody, uploadNote } from '../helpers/uploads.ts';

// A patient's erasure (POST /erasures) and an upload for that patient that would commit while the
// erasure runs: the erasure wins, or the upload fails; no note of the patient outlives its erasure.
const t = await createTestApp();
const { app } = t;
const db = t.db.database.db;
const clinic = await createClinicWithKeys(t.db.database);

const upload = async (externalId: string, path: 'notes' | 'notes/live') => {
  if (path === 'notes/live') {
    return app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/live`,
      headers: { 'x-api-key': clinic.admin },
      payload: { name: 'Rex Corrida', external_id: externalId },
    });
  }
  const body = await multipartBody({
    audio: { bytes: fixture('consultation.mp3'), fileName: 'consulta.mp3' },
    metadata: { name: 'Rex Corrida', external_id: externalId },
  });
  return app.inject({
    method: 'POST',
    url: `${PREFIX}/notes`,
    payload: body.payload,
    headers: { ...body.headers, 'x-api-key': clinic.admin },
  });
};

describe.skipIf(!t.db.url)('an upload racing its patient’s erasure', () => {
  for (const path of ['notes', 'notes/live'] as const) {
    it(`POST /${path} while the erasure runs: refused with 409 PATIENT_ERASURE_IN_PROGRESS, and no note of the patient is left`, async () => {
      const externalId = `PAC-RACE-${path === 'notes' ? 'UP' : 'LIVE'}`;
      const first = await uploadNote(app, clinic.admin, { name: 'Rex Corrida', external_id: externalId });
      // Another session holds the patient's existing note: the erasure starts (and takes whatever it
      // takes first) and then waits for that row, mid-erasure, while the upload runs.
      const holder = new pg.Client({ connectionString: t.db.url });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('select 1 from notes where id = $1 for update', [first]);
        const erasure = app.inject({
          method: 'POST',
          url: `${PREFIX}/erasures`,
          headers: { 'x-api-key': clinic.admin },
          payload: { external_id: externalId, reason: 'Pedido do titular' },
        });
        erasure.catch(() => undefined);
        await waitForLockWaiters(holder, 1);
        const racing = await upload(externalId, path);
        await holder.query('commit');
        const erased = await erasure;
        expect(erased.statusCode, erased.body).toBe(200);
        expect(racing.statusCode, racing.body).toBe(409);
        expect(racing.json()).toMatchObject({ code: 'PATIENT_ERASURE_IN_PROGRESS' });
      } finally {
        await holder.end();
      }
      expect(await db.select({ id: notes.id }).from(notes).where(eq(notes.externalId, externalId))).toEqual([]);
      // Once the erasure is over, the patient's next note is a new one, and it is accepted.
      expect((await upload(externalId, path)).statusCode).toBe(201);
    }, 60_000);
  }

  it('an upload that began before the erasure: the erasure waits for it, then erases its note too', async () => {
    const externalId = 'PAC-RACE-BEFORE';
    await uploadNote(app, clinic.admin, { name: 'Rex Corrida', external_id: externalId });
    const observer = new pg.Client({ connectionString: t.db.url });
    await observer.connect();
    try {
      // The clinic's row (the upload charges its quota under that lock) holds the upload mid-transaction.
      const [uploaded, erased] = await raceBehindLock(
        t.db.url!,
        'select 1 from clinics where id = $1 for update',
        [clinic.clinicId],
        2,
        async () => {
          const uploading = upload(externalId, 'notes');
          await waitForLockWaiters(observer, 1);
          const erasing = app.inject({
            method: 'POST',
            url: `${PREFIX}/erasures`,
            headers: { 'x-api-key': clinic.admin },
            payload: { external_id: externalId, reason: 'Pedido do titular' },
          });
          return Promise.all([uploading, erasing]);
        },
      );
      expect(uploaded.statusCode, uploaded.body).toBe(201);
      expect(erased.statusCode, erased.body).toBe(200);
      expect(erased.json().data.notes_deleted).toBe(2);
    } finally {
      await observer.end();
    }
    expect(await db.select({ id: notes.id }).from(notes).where(eq(notes.externalId, externalId))).toEqual([]);
  }, 60_000);
});
