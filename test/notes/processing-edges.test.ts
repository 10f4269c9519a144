import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOTE_MAX_RUNS } from '../../src/notes/processing/retry-budget.ts';
import { TRANSCRIBE_QUEUE } from '../../src/notes/processing/transcribe.job.ts';
import { type SQL, sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { rowsOf } from '../helpers/database.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { filesUnder, fixture, postNote, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { startReceiver } from './webhooks-receiver.ts';

// Edges of the notes pipeline: every accepted format end to end, the reconciliation sweep, the
// upper duration limit, and numeric section order. Sandbox transcriber and rules sectioner.

const { app, db } = await createTestApp({ startWorkers: true });
const clinic = await createClinicWithKeys(db.database);
// Its own app (and database), without workers: the fixtures last about 23.5 s, over its 15 s maximum.
const limited = await createTestApp({ env: { AUDIO_MAX_SECONDS: '15' } });
const limitedClinic = await createClinicWithKeys(limited.db.database);

async function getNote(id: string, key = clinic.viewer) {
  const response = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(key) });
  expect(response.statusCode).toBe(200);
  return response.json().data as {
    transcription_status: string;
    failure?: { code: string; message: string };
    note_sections: { id: string; label: string; content: string; order: string }[];
  };
}

describe('every accepted format, default limits', () => {
  it.each(['mp3', 'wav', 'm4a', 'aac'])('consultation.%s reaches completed with ordered sections', async (format) => {
    const id = await uploadNote(app, clinic.editor, { name: `Format ${format}` }, `consultation.${format}`);
    expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('completed');
    const note = await getNote(id);
    expect(note.transcription_status).toBe('completed');
    expect(note).not.toHaveProperty('failure');
    expect(note.note_sections.length).toBeGreaterThan(0);
    expect(note.note_sections.map((section) => section.order)).toEqual(note.note_sections.map((_, index) => String(index + 1)));
    for (const section of note.note_sections) expect(section.content.trim()).not.toBe('');
    const [stored] = await rowsOf<{ audio_format: string }>(db.database.db, sql`select audio_format from notes where id = ${id}`);
    expect(stored?.audio_format).toBe(format);
  });
});

describe('the reconciliation sweep', () => {
  // The definition the app registered; sending it through the queue runs the app's own handler.
  const reconcile = app.vetflow.jobs.definition('notes.reconcile');

  async function runReconcile() {
    const jobId = await app.vetflow.jobs.send(reconcile, {});
    await eventually(
      async () =>
        (await rowsOf<{ state: string }>(db.database.db, sql`select state from pgboss.job where id = ${jobId}`))[0]?.state === 'completed',
      20_000,
      100,
    );
  }

  /** The state a worker that died mid-job leaves: `processing`, no transcript, no sections. */
  async function strand(id: string, attempts: number, startedAt: SQL) {
    await db.database.db.execute(sql`delete from note_sections where note_id = ${id}`);
    await db.database.db.execute(
      sql`update notes set transcription_status = 'processing', processing_started_at = ${startedAt}, attempts = ${attempts},
            transcript = null, completed_at = null where id = ${id}`,
    );
  }

  const transcribeJobs = async (id: string) =>
    (
      await rowsOf<{ n: number }>(
        db.database.db,
        sql`select count(*)::int as n from pgboss.job where name = ${TRANSCRIBE_QUEUE} and data->>'noteId' = ${id}`,
      )
    )[0]?.n;

  it('re-queues a stale note with attempts left, fails one at NOTE_MAX_RUNS (note.failed recorded), leaves a fresh one', async () => {
    const hooked = await createClinicWithKeys(db.database, 'Clínica com webhook');
    const receiver = await startReceiver();
    const registered = await app.inject({
      method: 'POST',
      url: '/notes/v1/webhooks',
      headers: as(hooked.admin),
      payload: { url: receiver.url, events: ['note.failed'] },
    });
    expect(registered.statusCode, registered.body).toBe(201);

    const [requeued, exhausted, fresh] = [
      await uploadNote(app, hooked.editor, { name: 'Requeued' }),
      await uploadNote(app, hooked.editor, { name: 'Exhausted' }),
      await uploadNote(app, hooked.editor, { name: 'Fresh' }),
    ];
    for (const id of [requeued, exhausted, fresh]) expect(await waitUntilSettled(app, hooked.viewer, id)).toBe('completed');
    // Stale means older than twice the transcription timeout plus a minute (notes.module.ts).
    const stale = sql`now() - interval '1 day'`;
    await strand(requeued, NOTE_MAX_RUNS - 1, stale);
    await strand(exhausted, NOTE_MAX_RUNS, stale);
    await strand(fresh, 1, sql`now()`);

    await runReconcile();

    // Failed by the sweep itself, not by a re-queued job: its only job is the upload's.
    const failed = await getNote(exhausted, hooked.viewer);
    expect(failed.transcription_status).toBe('failed');
    expect(failed.failure).toEqual({ code: 'PROCESSING_FAILED', message: 'Processing was interrupted too many times' });
    expect(failed.note_sections).toEqual([]);
    expect(await transcribeJobs(exhausted)).toBe(1);

    expect(await waitUntilSettled(app, hooked.viewer, requeued)).toBe('completed');
    expect((await getNote(requeued, hooked.viewer)).note_sections.length).toBeGreaterThan(0);
    expect(await transcribeJobs(requeued)).toBe(2);
    const [attempts] = await rowsOf<{ attempts: number }>(db.database.db, sql`select attempts from notes where id = ${requeued}`);
    expect(attempts?.attempts).toBe(NOTE_MAX_RUNS);

    expect((await getNote(fresh, hooked.viewer)).transcription_status).toBe('processing');
    expect(await transcribeJobs(fresh)).toBe(1);

    const events = await rowsOf<{ type: string; payload: { type: string; data: Record<string, any> } }>(
      db.database.db,
      sql`select type, payload from webhook_events where clinic_id = ${hooked.clinicId}`,
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'note.failed',
      payload: {
        type: 'note.failed',
        data: { note_id: exhausted, transcription_status: 'failed', failure: { code: 'PROCESSING_FAILED' } },
      },
    });
    await eventually(async () => receiver.ofType('note.failed').length === 1, 15_000);
  });
});

describe('PATCH /note_sections order', () => {
  it('sorts sections numerically: "9" before "10"', async () => {
    const id = await uploadNote(app, clinic.editor, { name: 'Ordem' });
    expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('completed');
    const [first, second] = (await getNote(id)).note_sections;
    if (!first || !second) throw new Error('expected at least two sections');
    const patch = async (sectionId: string, order: string) => {
      const response = await app.inject({
        method: 'PATCH',
        url: `/notes/v1/note_sections?section_id=${sectionId}`,
        headers: as(clinic.editor),
        payload: { title: `Seção ${order}`, content: `Conteúdo ${order}`, order },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().order).toBe(order);
    };
    await patch(first.id, '10');
    await patch(second.id, '9');

    const sections = (await getNote(id)).note_sections;
    const ids = sections.map((section) => section.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    const orders = sections.map((section) => Number(section.order));
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(sections.slice(-2).map((section) => section.order)).toEqual(['9', '10']);
  });
});

describe('POST /notes over AUDIO_MAX_SECONDS', () => {
  it.each(['mp3', 'wav', 'm4a', 'aac'])('consultation.%s → 422 AUDIO_DURATION_INVALID, nothing left behind', async (format) => {
    const response = await postNote(limited.app, limitedClinic.editor, {
      audio: { bytes: fixture(`consultation.${format}`), fileName: `c.${format}` },
      metadata: { name: 'Longo' },
    });
    expect(response.statusCode).toBe(422);
    const error = response.json();
    expect(error).toMatchObject({
      error: 'unprocessable_entity',
      code: 'AUDIO_DURATION_INVALID',
      details: { min_duration: 10, max_duration: 15 },
    });
    expect(Object.keys(error.details).sort()).toEqual(['duration', 'max_duration', 'min_duration']);
    expect(error.details.duration).toBeGreaterThan(23);
    expect(error.details.duration).toBeLessThan(24);
    expect(Math.round(error.details.duration * 100) / 100).toBe(error.details.duration);

    const counts = await rowsOf<{ notes: number; jobs: number }>(
      limited.db.database.db,
      sql`select (select count(*)::int from notes) as notes,
                 (select count(*)::int from pgboss.job where name = ${TRANSCRIBE_QUEUE}) as jobs`,
    );
    expect(counts[0]).toEqual({ notes: 0, jobs: 0 });
    expect(filesUnder(path.join(limited.config.DATA_DIR, 'audio'))).toEqual([]);
    expect(filesUnder(path.join(limited.config.DATA_DIR, 'tmp'))).toEqual([]);
  });
});
