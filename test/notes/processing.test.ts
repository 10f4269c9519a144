import { describe, expect, it } from 'vitest';
import { TRANSCRIBE_QUEUE, TranscribePayload } from '../../src/notes/processing/transcribe.job.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { SECTION_LABELS } from '../../src/providers/sectioning/port.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

const { app, db } = await createTestApp({ startWorkers: true });
const clinic = await createClinicWithKeys(db.database);

const upload = (name: string) => uploadNote(app, clinic.editor, { name });

async function statusOf(id: string) {
  const response = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/status`, headers: as(clinic.viewer) });
  expect(response.statusCode).toBe(200);
  return response.json() as { status: string; valid: boolean };
}

const settled = (id: string) => waitUntilSettled(app, clinic.viewer, id);

describe('the notes pipeline with the sandbox provider and the rules sectioner', () => {
  it('takes an upload from pending to completed with ordered sections', async () => {
    const id = await upload('Thor');
    expect(await settled(id)).toBe('completed');
    expect(await statusOf(id)).toEqual({ status: 'completed', valid: true });

    const response = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.viewer) });
    expect(response.statusCode).toBe(200);
    const note = response.json().data;
    expect(note.transcription_url).toBe(`http://vetflow.test/notes/v1/notes/${id}/transcription`);
    expect(note).not.toHaveProperty('failure');
    const sections = note.note_sections as { label: string; title: string; content: string; order: string; note_id: string }[];
    expect(sections.length).toBeGreaterThanOrEqual(3);
    expect(sections.map((section) => section.order)).toEqual(sections.map((_, index) => String(index + 1)));
    for (const section of sections) {
      expect(SECTION_LABELS).toContain(section.label);
      expect(section.content.trim().length).toBeGreaterThan(0);
      expect(section.note_id).toBe(id);
    }
    expect(sections.map((section) => section.label)).toContain('anamnesis');
  });

  it('marks every sandbox note simulated: on the note, first among its review flags, and in the list', async () => {
    const id = await upload('Simulado');
    const waiting = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.viewer) })).json().data;
    expect(await settled(id)).toBe('completed');
    const note = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.viewer) })).json().data;
    expect(note.simulated).toBe(true);
    expect(note.review_flags[0]).toEqual({ section: null, sentence: null, reason: 'simulated_transcript', token: null });
    expect(note.review_flags.filter((flag: { reason: string }) => flag.reason === 'simulated_transcript')).toHaveLength(1);
    // Stored at completion: a note that has not been transcribed yet is not (yet) simulated.
    if (waiting.transcription_status !== 'completed') expect(waiting.simulated).toBe(false);
    const list = await app.inject({ method: 'GET', url: `/notes/v1/notes?limit=100`, headers: as(clinic.viewer) });
    const item = list.json().data.find((listed: { id: string }) => listed.id === id);
    expect(item).toMatchObject({ id, simulated: true });
    const transcript = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/transcription`, headers: as(clinic.viewer) })).json();
    expect(JSON.stringify(transcript)).toContain('sandbox');
  });

  it('gives the same note for the same audio (deterministic sandbox)', async () => {
    const [first, second] = [await upload('Mel'), await upload('Mel')];
    await settled(first);
    await settled(second);
    const contents = async (id: string) =>
      (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.viewer) }))
        .json()
        .data.note_sections.map((section: { label: string; content: string }) => [section.label, section.content]);
    expect(await contents(first)).toEqual(await contents(second));
  });

  it('fails a note named FAIL at once, with its failure code', async () => {
    const id = await upload('FAIL');
    expect(await settled(id)).toBe('failed');
    expect(await statusOf(id)).toEqual({ status: 'failed', valid: false });
    const note = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.viewer) })).json().data;
    expect(note).toMatchObject({ transcription_status: 'failed', transcription_url: null, note_sections: [] });
    expect(note.failure).toMatchObject({ code: 'SANDBOX_FORCED_FAILURE' });
    expect(note.failure.message).toEqual(expect.any(String));
  });

  it('never duplicates sections when a job runs again', async () => {
    const id = await upload('Rex');
    await settled(id);
    const count = async () => {
      const result = await db.database.db.execute(sql`select count(*)::int as n from note_sections where note_id = ${id}`);
      return (result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? -1;
    };
    const before = await count();
    const definition = { name: TRANSCRIBE_QUEUE, payload: TranscribePayload, handle: async () => {} };
    await app.vetflow.jobs.send(definition, { noteId: id });
    await eventually(
      async () => {
        const jobs = await db.database.db.execute(
          sql`select count(*)::int as n from pgboss.job where name = ${TRANSCRIBE_QUEUE} and data->>'noteId' = ${id} and state = 'completed'`,
        );
        return ((jobs as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0) >= 2;
      },
      20_000,
      100,
    );
    expect(await count()).toBe(before);
    expect((await statusOf(id)).status).toBe('completed');
  });
});

describe('reads', () => {
  it('refuses another clinic with 403 and answers 404 for an unknown note', async () => {
    const id = await upload('Bidu');
    const other = await createClinicWithKeys(db.database, 'Outra');
    for (const url of [`/notes/v1/notes/${id}`, `/notes/v1/notes/${id}/status`]) {
      const response = await app.inject({ method: 'GET', url, headers: as(other.admin) });
      expect(response.statusCode, url).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN_TENANT');
    }
    const missing = await app.inject({
      method: 'GET',
      url: '/notes/v1/notes/3f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10',
      headers: as(clinic.viewer),
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('NOTE_NOT_FOUND');
    const bad = await app.inject({ method: 'GET', url: '/notes/v1/notes/nope/status', headers: as(clinic.viewer) });
    expect(bad.statusCode).toBe(400);
  });

  it('does not rate-limit status polling', async () => {
    const id = await upload('Poll');
    const response = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/status`, headers: as(clinic.viewer) });
    expect(response.headers).not.toHaveProperty('x-ratelimit-limit-minute');
    const note = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.viewer) });
    expect(note.headers).toHaveProperty('x-ratelimit-limit-minute');
  });
});
