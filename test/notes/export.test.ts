import { describe, expect, it } from 'vitest';
import { escapeRtf } from '../../src/notes/export/rtf.ts';
import { createTestApp } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// The export over HTTP, on notes the real pipeline (sandbox transcriber, rules sectioner) completed.

const { app, db } = await createTestApp({ startWorkers: true });
const clinic = await createClinicWithKeys(db.database);

async function upload(metadata: object) {
  const id = await uploadNote(app, clinic.editor, metadata);
  await waitUntilSettled(app, clinic.viewer, id);
  const note = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.viewer) })).json().data;
  return note as {
    id: string;
    created_at: string;
    visit_date: string;
    transcription_status: string;
    note_sections: { title: string; content: string }[];
  };
}

const exportOf = (id: string, query = '', key = clinic.viewer) =>
  app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/export${query}`, headers: as(key) });

/** Every needle appears in `text`, each after the one before. */
function expectInOrder(text: string, needles: string[]) {
  let from = 0;
  for (const needle of needles) {
    const at = text.indexOf(needle, from);
    expect(at, `"${needle}" after offset ${from}`).toBeGreaterThanOrEqual(0);
    from = at + needle.length;
  }
}

const tobi = await upload({ name: 'Tóbi', gender: 'male', external_id: 'PAC-7' });
// The consultation day: the note's visit date (no visit_date sent: the clinic's day at creation).
const day = tobi.visit_date;

describe('GET /notes/{id}/export', () => {
  it('answers TXT by default, to a viewer: UTF-8 header, then every section in order', async () => {
    expect(tobi.transcription_status).toBe('completed');
    expect(tobi.note_sections.length).toBeGreaterThanOrEqual(3);
    const response = await exportOf(tobi.id);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="Tobi-${day}.txt"; filename*=UTF-8''T%C3%B3bi-${day}.txt`);
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.headers).toHaveProperty('x-ratelimit-limit-minute');
    const text = response.rawPayload.toString('utf8');
    // A sandbox note: the export opens by saying so, and its "Revisar" block repeats why; the species
    // line when the consultation names one (notes-vitals.md).
    expect(text).toMatch(
      new RegExp(`^SIMULADO — transcrição de teste\n\nPaciente: Tóbi\nSexo: Macho\nData: ${day}\n(Espécie: \\S+\n)?ID externo: PAC-7\n\n`),
    );
    expect(text).toContain('Revisar\n-------\n- Transcrição simulada (provedor sandbox)');
    expectInOrder(
      text,
      tobi.note_sections.flatMap((section) => [`${section.title}\n${'-'.repeat([...section.title].length)}\n`, section.content.trim()]),
    );
    expect(explicitFormat(await exportOf(tobi.id, '?format=txt'))).toBe(text);
  });

  it('answers RTF: ASCII-only text with escaped accents, a blue bold title style, sans titles, serif body', async () => {
    const response = await exportOf(tobi.id, '?format=rtf');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/rtf');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="Tobi-${day}.rtf"; filename*=UTF-8''T%C3%B3bi-${day}.rtf`);
    const rtf = response.payload;
    expect(rtf.startsWith('{\\rtf1\\ansi')).toBe(true);
    expect(rtf.trimEnd().endsWith('}')).toBe(true);
    expect(/^[\x20-\x7e\n]*$/.test(rtf)).toBe(true);
    expect(rtf).toMatch(/\\f0\\fswiss[^;]*Arial;/);
    expect(rtf).toMatch(/\\f1\\froman[^;]*Times New Roman;/);
    expect(rtf).toContain('{\\colortbl;\\red0\\green56\\blue168;');
    expect(rtf).toContain('T\\u243obi');
    // The banner first, before the header: bold, in the review red (the last colour, 8).
    expect(rtf).toContain(`\\b\\cf8 ${escapeRtf('SIMULADO — transcrição de teste')}\\par}`);
    expect(rtf.indexOf('SIMULADO')).toBeLessThan(rtf.indexOf('Paciente'));
    // Titles: the sans-serif font, bold, in the blue (colour 1); escapeRtf has its own tests.
    for (const section of tobi.note_sections) expect(rtf).toContain(`\\f0\\fs28\\b\\cf1 ${escapeRtf(section.title)}\\par}`);
    // Each section's text in its own colour.
    const bodyColours = [...rtf.matchAll(/\\f1\\fs24\\cf(\d+) /g)].map((match) => match[1]).filter((colour) => colour !== '8');
    expect(bodyColours).toHaveLength(tobi.note_sections.length);
    expect(new Set(bodyColours).size).toBe(Math.min(tobi.note_sections.length, 6));
  });

  it('refuses an unknown format with 400 INVALID_PARAMETER', async () => {
    for (const query of ['?format=pdf', '?format=', '?format=RTF', '?format=txt&format=rtf']) {
      const response = await exportOf(tobi.id, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({
        error: 'bad_request',
        code: 'INVALID_PARAMETER',
        details: { field: 'format', expected: ['txt', 'rtf'] },
      });
    }
  });

  it('refuses a note that is not completed with 422 NOTE_NOT_COMPLETED', async () => {
    const failed = await upload({ name: 'FAIL' });
    expect(failed.transcription_status).toBe('failed');
    const response = await exportOf(failed.id, '?format=rtf');
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({
      error: 'unprocessable_entity',
      code: 'NOTE_NOT_COMPLETED',
      details: { transcription_status: 'failed' },
    });
  });

  it('answers 404 for a missing note, 400 for a bad id, 403 for another clinic, 401 without a key', async () => {
    const missing = await exportOf('3f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('NOTE_NOT_FOUND');
    expect((await exportOf('nope')).statusCode).toBe(400);
    const other = await createClinicWithKeys(db.database, 'Outra');
    const foreign = await exportOf(tobi.id, '?format=txt', other.admin);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().code).toBe('FORBIDDEN_TENANT');
    const anonymous = await app.inject({ method: 'GET', url: `/notes/v1/notes/${tobi.id}/export` });
    expect(anonymous.statusCode).toBe(401);
  });
});

function explicitFormat(response: { statusCode: number; rawPayload: Buffer }) {
  expect(response.statusCode).toBe(200);
  return response.rawPayload.toString('utf8');
}
