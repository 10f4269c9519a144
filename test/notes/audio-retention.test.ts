import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { RETENTION_BATCH, runRetention } from '../../src/platform/retention.ts';
import { retentionTasks } from '../../src/retention.ts';
import { createTestApp } from '../helpers/app.ts';
import { rowsOf } from '../helpers/database.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// The clinic's audio retention (`audio_retention_days`, docs/privacy.md): the daily run deletes the
// recording of completed notes past it — an expired and a kept note side by side, 0 days, failed
// notes left alone — and the note says so (audio.deleted_at, 410 AUDIO_EXPIRED, `audio_deleted` in
// its history) while its sections and exports stay; a failed note without its recording cannot be
// retried; 10,000 expired recordings go in batches of short transactions.

const t = await createTestApp({ startWorkers: true });
const { app } = t;
const db = t.db.database.db;
const clinic = await createClinicWithKeys(t.db.database);
const zero = await createClinicWithKeys(t.db.database, 'Clínica zero');
const keeps = await createClinicWithKeys(t.db.database, 'Clínica que guarda');
const audioDir = path.join(t.config.DATA_DIR, 'audio');
const quiet = createLogger(t.config, new Writable({ write: (_chunk, _encoding, done) => done() }));
const retain = () => runRetention(retentionTasks(t.config, t.db.database), quiet);

type Method = 'GET' | 'POST' | 'PATCH';
const call = (method: Method, url: string, key: string, payload?: object, headers: Record<string, string> = {}) =>
  app.inject({ method, url: `${PREFIX}${url}`, headers: { 'x-api-key': key, ...headers }, ...(payload ? { payload } : {}) });
async function settledNote(key: string, name: string, expected: 'completed' | 'failed' = 'completed'): Promise<string> {
  const id = await uploadNote(app, key, { name });
  expect(await waitUntilSettled(app, key, id)).toBe(expected);
  return id;
}
/** Moves the note's completion `days` days (and a minute) into the past. */
const completedDaysAgo = (id: string, days: number, minutes = 0) =>
  db.execute(sql`update notes set completed_at = now() - make_interval(days => ${days}, mins => ${minutes}) where id = ${id}`);
const fileOf = async (id: string) =>
  path.join(audioDir, (await rowsOf<{ audio_key: string }>(db, sql`select audio_key from notes where id = ${id}`))[0]!.audio_key);

describe('the audio_retention_days setting', () => {
  it('is null (kept) by default, 0-3650 or null, and only an administrator changes it', async () => {
    expect((await call('GET', '/settings', clinic.viewer)).json().data.audio_retention_days).toBeNull();
    for (const value of [-1, 3651, 1.5, '7']) {
      const refused = await call('PATCH', '/settings', clinic.admin, { audio_retention_days: value });
      expect(refused.statusCode, String(value)).toBe(422);
      expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'audio_retention_days' } });
    }
    expect((await call('PATCH', '/settings', clinic.editor, { audio_retention_days: 5 })).statusCode).toBe(403);
    for (const [key, days] of [
      [clinic.admin, 3650],
      [clinic.admin, 5],
      [zero.admin, 0],
      [keeps.admin, null],
    ] as const) {
      const patched = await call('PATCH', '/settings', key, { audio_retention_days: days });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json().data).toMatchObject({ audio_retention_days: days, default_template: 'padrao' });
    }
    expect((await call('GET', '/settings', clinic.viewer)).json().data.audio_retention_days).toBe(5);
  });
});

describe('the retention run', () => {
  it('deletes the recording past the setting and keeps the one just inside it', { timeout: 60_000 }, async () => {
    const expired = await settledNote(clinic.editor, 'Expirado');
    const kept = await settledNote(clinic.editor, 'Guardado');
    const failed = await settledNote(clinic.editor, 'FAIL', 'failed');
    const elsewhere = await settledNote(keeps.editor, 'Sem retenção');
    await completedDaysAgo(expired, 5, 1);
    await completedDaysAgo(kept, 4, 59 + 23 * 60);
    await completedDaysAgo(elsewhere, 3000);
    await db.execute(sql`update notes set created_at = now() - interval '3000 days' where id = ${failed}`);
    const expiredFile = await fileOf(expired);
    expect(existsSync(expiredFile)).toBe(true);

    const report = await retain();
    expect(report.audio_deleted).toBe(1);
    expect(existsSync(expiredFile)).toBe(false);
    for (const id of [kept, failed, elsewhere]) expect(existsSync(await fileOf(id)), id).toBe(true);

    // The note says when; its audio route answers 410; its sections, transcript and exports stay.
    const note = (await call('GET', `/notes/${expired}`, clinic.viewer)).json().data;
    expect(note.audio).toEqual({ available: false, deleted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
    expect(note.note_sections.length).toBeGreaterThan(0);
    const gone = await call('GET', `/notes/${expired}/audio`, clinic.viewer);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ error: 'gone', code: 'AUDIO_EXPIRED', details: { deleted_at: note.audio.deleted_at } });
    expect(
      (await app.inject({ method: 'HEAD', url: `${PREFIX}/notes/${expired}/audio`, headers: { 'x-api-key': clinic.viewer } })).statusCode,
    ).toBe(410);
    expect((await call('GET', `/notes/${expired}/transcription`, clinic.viewer)).statusCode).toBe(200);
    expect((await call('GET', `/notes/${expired}/export?format=txt`, clinic.viewer)).statusCode).toBe(200);
    const history = (await call('GET', `/notes/${expired}/history`, clinic.viewer)).json().data;
    expect(history.filter((event: { event: string }) => event.event === 'audio_deleted')).toEqual([
      {
        event: 'audio_deleted',
        at: expect.any(String),
        key_id: null,
        key_name: null,
        request_id: null,
        details: { retention_days: 5 },
      },
    ]);
    expect((await call('GET', `/notes/${kept}`, clinic.viewer)).json().data.audio).toEqual({ available: true, deleted_at: null });
    expect((await call('GET', `/notes/${kept}/audio`, clinic.viewer, undefined, { range: 'bytes=0-1' })).statusCode).toBe(206);

    // Idempotent: nothing more the second time.
    expect((await retain()).audio_deleted).toBe(0);
    expect((await call('GET', `/notes/${expired}/history`, clinic.viewer)).json().data).toHaveLength(history.length);
  });

  it('at 0 days deletes the recording of every note completed before the run', { timeout: 60_000 }, async () => {
    const done = await settledNote(zero.editor, 'Logo após');
    const failed = await settledNote(zero.editor, 'FAIL', 'failed');
    const report = await retain();
    expect(report.audio_deleted).toBe(1);
    expect((await call('GET', `/notes/${done}`, zero.viewer)).json().data.audio.available).toBe(false);
    // A failed note keeps its recording: a retry needs it.
    expect((await call('GET', `/notes/${failed}`, zero.viewer)).json().data.audio.available).toBe(true);
  });

  it('a failed note whose recording is gone is refused a retry, with nothing charged or written', async () => {
    const lost = await settledNote(keeps.editor, 'FAIL', 'failed');
    const expired = await settledNote(keeps.editor, 'FAIL', 'failed');
    rmSync(await fileOf(lost));
    await db.execute(sql`update notes set audio_deleted_at = now() where id = ${expired}`);
    const before = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from note_retries`);

    const missing = await call('POST', `/notes/${lost}/retry`, keeps.editor);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('AUDIO_NOT_FOUND');
    const refused = await call('POST', '/transcripts/retry', keeps.editor, { note_id: expired });
    expect(refused.statusCode).toBe(410);
    expect(refused.json()).toMatchObject({ code: 'AUDIO_EXPIRED', details: { deleted_at: expect.any(String) } });
    expect(await rowsOf(db, sql`select count(*)::int as n from note_retries`)).toEqual(before);
    expect((await call('GET', `/notes/${expired}`, keeps.viewer)).json().data.transcription_status).toBe('failed');
  });
});

describe('10,000 expired recordings', () => {
  it('go in batches of short transactions, never one', { timeout: 120_000 }, async () => {
    // Every UPDATE statement on notes logs its transaction and how many recordings it marked deleted.
    await db.execute(sql`create table audio_probe (xact bigint, marked int)`);
    await db.execute(
      sql.raw(`create function audio_probe() returns trigger language plpgsql as $$
      begin insert into audio_probe select txid_current(), count(*) from changed where audio_deleted_at is not null; return null; end $$`),
    );
    await db.execute(
      sql.raw(`create trigger audio_probe after update on notes referencing new table as changed
        for each statement execute function audio_probe()`),
    );
    // Recordings that are not on disk: deleting an absent file is fine, as on S3.
    await db.execute(sql`insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds,
        transcription_status, completed_at)
      select ${clinic.clinicId}, 'Lote ' || g, ${clinic.clinicId} || '/lote-' || g || '.mp3', 'mp3', 1, repeat('0', 64), 30, 'completed',
        now() - interval '30 days' - make_interval(secs => g)
      from generate_series(1, 10000) g`);

    const report = await retain();
    expect(report.audio_deleted).toBe(10_000);
    const statements = await rowsOf<{ xact: string; marked: number }>(db, sql`select xact::text, marked from audio_probe where marked > 0`);
    expect(statements.reduce((sum, statement) => sum + statement.marked, 0)).toBe(10_000);
    expect(Math.max(...statements.map((statement) => statement.marked))).toBeLessThanOrEqual(RETENTION_BATCH);
    expect(new Set(statements.map((statement) => statement.xact)).size).toBe(statements.length);
    expect(statements.length).toBeGreaterThanOrEqual(10);
    const [events] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from note_history where event = 'audio_deleted'`);
    expect(events!.n).toBeGreaterThanOrEqual(10_000);
    expect((await retain()).audio_deleted).toBe(0);
  });
});
