import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { toTimestamp } from '../../src/platform/http/schemas.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// The single-note read formats its sections' timestamps in SQL (notes.repo.ts,
// prepareNoteWithSections): they must be what every other answer shows for the same instant — whole
// seconds (cut, not rounded), UTC, `Z` — whatever the session's time zone (on the embedded database
// the app shares the test's one connection, so the São Paulo session below is the one it reads on).
const { app, db } = await createTestApp({ startWorkers: true });
const clinic = await createClinicWithKeys(db.database);
const id = await uploadNote(app, clinic.editor, { name: 'Fuso' });
await waitUntilSettled(app, clinic.viewer, id);

interface Section {
  id: string;
  created_at: string;
  updated_at: string;
}

describe('GET /notes/{id} section timestamps', () => {
  it('are the stored instants cut to whole seconds in UTC, also for a session in another time zone', async () => {
    // Fractions just under the next second, which rounding would carry over; and an instant whose
    // São Paulo date differs from its UTC date.
    await db.database.db.execute(
      sql`update note_sections set created_at = '2026-03-01T01:59:59.999999Z', updated_at = '2026-03-01T02:00:00.5Z' where note_id = ${id}`,
    );
    await db.database.db.execute(sql`set time zone 'America/Sao_Paulo'`);
    try {
      const response = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: { 'x-api-key': clinic.viewer } });
      expect(response.statusCode).toBe(200);
      const sections: Section[] = response.json().data.note_sections;
      expect(sections.length).toBeGreaterThan(0);
      for (const section of sections) {
        expect(section.created_at).toBe('2026-03-01T01:59:59Z');
        expect(section.updated_at).toBe('2026-03-01T02:00:00Z');
      }
    } finally {
      await db.database.db.execute(sql`set time zone 'UTC'`);
    }
  });

  it('match what a section edit answers for the same section', async () => {
    const before: Section[] = (
      await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: { 'x-api-key': clinic.viewer } })
    ).json().data.note_sections;
    const edited = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/note_sections?section_id=${before[0]!.id}`,
      headers: { 'x-api-key': clinic.editor },
      payload: { title: 'Anamnese', content: 'Texto revisado.', order: '1', label: 'anamnesis' },
    });
    expect(edited.statusCode).toBe(200);
    const after: Section[] = (
      await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: { 'x-api-key': clinic.viewer } })
    ).json().data.note_sections;
    const section = after.find((candidate) => candidate.id === before[0]!.id)!;
    expect(section.updated_at).toBe(edited.json().updated_at);
    expect(section.created_at).toBe(edited.json().created_at);
  });
});

describe('one rule for every timestamp the API writes (docs/decisions.md, "Timestamps")', () => {
  it('a section edited at a sub-second time shows no later time than the signature that follows, nor than its note', async () => {
    const signed = await uploadNote(app, clinic.editor, { name: 'Assinada' });
    await waitUntilSettled(app, clinic.viewer, signed);
    const read = async () =>
      (await app.inject({ method: 'GET', url: `/notes/v1/notes/${signed}`, headers: { 'x-api-key': clinic.viewer } })).json().data;
    const section: Section = (await read()).note_sections[0];
    // Early in a second, so the edit and the signature fall in it: the section was last written a
    // moment ago in this same second (at a fraction of it), then it is edited, then the note signed.
    while (Date.now() % 1000 < 50 || Date.now() % 1000 > 350) await new Promise((resolve) => setTimeout(resolve, 10));
    await db.database.db.execute(sql`update note_sections set updated_at = clock_timestamp() where id = ${section.id}`);
    const edited = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/note_sections?section_id=${section.id}`,
      headers: { 'x-api-key': clinic.editor },
      payload: { title: 'Anamnese', content: 'Texto revisado antes de assinar.', order: '1', label: 'anamnesis' },
    });
    const answeredAt = toTimestamp(new Date());
    expect(edited.statusCode).toBe(200);
    const sign = await app.inject({
      method: 'POST',
      url: `/notes/v1/notes/${signed}/sign`,
      headers: { 'x-api-key': clinic.editor },
      payload: { signed_by: { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' }, acknowledge_flags: true },
    });
    expect(sign.statusCode).toBe(200);

    const note = await read();
    const after = note.note_sections.find((candidate: Section) => candidate.id === section.id) as Section;
    const history: { event: string; at: string }[] = (
      await app.inject({ method: 'GET', url: `/notes/v1/notes/${signed}/history`, headers: { 'x-api-key': clinic.viewer } })
    ).json().data;
    const signedEvent = history.find((event) => event.event === 'signed') as { at: string };
    const stamps = [edited.json().updated_at, after.updated_at, note.updated_at, note.signature.signed_at, signedEvent.at];
    for (const stamp of stamps) expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(after.updated_at).toBe(edited.json().updated_at);
    // The edit's time is never later than when its answer arrived, nor than anything after it.
    expect(after.updated_at <= answeredAt).toBe(true);
    expect(after.updated_at <= note.signature.signed_at).toBe(true);
    expect(after.updated_at <= note.updated_at).toBe(true);
    expect(after.updated_at <= signedEvent.at).toBe(true);
  });
});

describe('toTimestamp', () => {
  it('formats dates and ISO strings to whole seconds and passes the API form through', () => {
    expect(toTimestamp(new Date('2026-03-01T01:59:59.999Z'))).toBe('2026-03-01T01:59:59Z');
    expect(toTimestamp('2026-03-01T01:59:59.999999-03:00')).toBe('2026-03-01T04:59:59Z');
    expect(toTimestamp('2026-03-01T04:59:59Z')).toBe('2026-03-01T04:59:59Z');
  });
});
