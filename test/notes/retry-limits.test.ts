import { describe, expect, it } from 'vitest';
import { createClinic } from '../../src/notes/clinics/clinics.service.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { rowsOf } from '../helpers/database.ts';
import { as } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// A retry runs speech-to-text and drafting again: it is charged to the clinic's quota like an
// upload, and one note is retried a bounded number of times.
const { app, db } = await createTestApp({ startWorkers: true, env: { NOTE_MAX_RETRIES: '2' } });
const retry = (id: string, key: string) => app.inject({ method: 'POST', url: `/notes/v1/notes/${id}/retry`, headers: as(key) });

const jobsOf = async (id: string) =>
  (await rowsOf<{ n: number }>(db.database.db, sql`select count(*)::int as n from pgboss.job where data->>'noteId' = ${id}`))[0]?.n;
const statusOf = async (id: string) =>
  (await rowsOf<{ s: string }>(db.database.db, sql`select transcription_status as s from notes where id = ${id}`))[0]?.s;

/** A clinic (unlimited for now) with one note that failed; the sandbox fails a note named FAIL. */
async function clinicWithFailedNote(name: string) {
  const { clinic, adminKey } = await createClinic({ name }, db.database.db);
  const id = await uploadNote(app, adminKey, { name: 'FAIL' });
  expect(await waitUntilSettled(app, adminKey, id)).toBe('failed');
  const [note] = await rowsOf<{ seconds: number }>(
    db.database.db,
    sql`select audio_duration_seconds::float8 as seconds from notes where id = ${id}`,
  );
  return { clinicId: clinic.id, key: adminKey, id, seconds: note!.seconds };
}

const setQuota = (clinicId: string, minutes: number) =>
  db.database.db.execute(sql`update clinics set quota_minutes = ${minutes} where id = ${clinicId}`);

describe('retry and the monthly quota', () => {
  it('refuses a retry that does not fit the quota with 403 QUOTA_EXCEEDED, writing nothing', async () => {
    const note = await clinicWithFailedNote('Quota cheia');
    // The upload already used the whole quota (set afterwards, so the upload itself was let in).
    await setQuota(note.clinicId, Math.floor(note.seconds / 60));
    const jobsBefore = await jobsOf(note.id);
    const response = await retry(note.id, note.key);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota_limit: Math.floor(note.seconds / 60) } });
    expect(await statusOf(note.id)).toBe('failed');
    expect(await jobsOf(note.id)).toBe(jobsBefore);
    expect(await rowsOf(db.database.db, sql`select 1 from note_retries where note_id = ${note.id}`)).toHaveLength(0);
  });

  it('charges an accepted retry to the month, as an upload of the same audio', async () => {
    const note = await clinicWithFailedNote('Quota contada');
    const accepted = await retry(note.id, note.key);
    expect(accepted.statusCode).toBe(202);
    await waitUntilSettled(app, note.key, note.id);
    await setQuota(note.clinicId, 0);
    const refused = await retry(note.id, note.key);
    expect(refused.statusCode).toBe(403);
    // The upload and the retry: twice the audio.
    expect(refused.json().details.current_usage).toBeCloseTo((2 * note.seconds) / 60, 1);
  });
});

describe('retries per note (NOTE_MAX_RETRIES)', () => {
  it('accepts NOTE_MAX_RETRIES retries, then answers 422 NOTE_RETRY_LIMIT without a job', async () => {
    const note = await clinicWithFailedNote('Retentativas');
    for (let attempt = 1; attempt <= 2; attempt++) {
      expect((await retry(note.id, note.key)).statusCode).toBe(202);
      expect(await waitUntilSettled(app, note.key, note.id)).toBe('failed');
    }
    const jobsBefore = await jobsOf(note.id);
    const refused = await retry(note.id, note.key);
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'NOTE_RETRY_LIMIT', details: { retries: 2, max_retries: 2 } });
    expect(await statusOf(note.id)).toBe('failed');
    expect(await jobsOf(note.id)).toBe(jobsBefore);
  });

  it('lets only the cap through when many retries arrive at once', async () => {
    const note = await clinicWithFailedNote('Em rajada');
    const burst = await Promise.all(Array.from({ length: 5 }, () => retry(note.id, note.key)));
    // The retries queue on the clinic lock: the first finds the note failed and requeues it; the
    // rest find it pending (409 NOTE_NOT_FAILED) — unless the worker has already failed it again in
    // between (the sandbox is quick), when one more is rightly let in. Never more than the cap.
    const accepted = burst.filter((response) => response.statusCode === 202).length;
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThanOrEqual(2);
    for (const refused of burst.filter((response) => response.statusCode !== 202)) {
      expect(['NOTE_NOT_FAILED', 'NOTE_RETRY_LIMIT']).toContain(refused.json().code);
    }
    await waitUntilSettled(app, note.key, note.id);
    if (accepted === 1) {
      expect((await retry(note.id, note.key)).statusCode).toBe(202);
      await waitUntilSettled(app, note.key, note.id);
    }
    expect((await retry(note.id, note.key)).json().code).toBe('NOTE_RETRY_LIMIT');
    expect(await rowsOf(db.database.db, sql`select 1 from note_retries where note_id = ${note.id}`)).toHaveLength(2);
  });
});
