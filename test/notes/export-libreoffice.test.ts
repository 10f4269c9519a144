import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { noteOutcomes } from '../../src/notes/processing/note-outcome.ts';
import { claimForProcessing, insertNote } from '../../src/notes/store/notes.repo.ts';
import { NO_NOTE_EVENTS } from '../../src/notes/webhooks/note-events.ts';
import { SECTION_LABELS, SECTION_TITLES } from '../../src/providers/sectioning/port.ts';
import { createTestApp } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';

// The RTF opened by a real reader: LibreOffice converts the exported file to plain text (every
// title and accented word must survive) and to flat ODF XML (the title and body styles it read:
// colour, font, weight). Skipped only where LibreOffice is not installed.

const soffice = ['soffice', 'libreoffice']
  .flatMap((name) => (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, name)))
  .find((candidate) => existsSync(candidate));

const CONTENTS: Record<(typeof SECTION_LABELS)[number], string> = {
  anamnesis: 'Tutora relata que Tóbi está com vômito há três dias.\nNão há diarreia; apetite diminuído.',
  physical_exam: 'Temperatura 39,5 °C, mucosas rosadas, dor à palpação abdominal.',
  diagnosis: 'Suspeita de gastroenterite {aguda} com inflamação \\ irritação gástrica.',
  treatment: 'Omeprazol 1 mg/kg a cada 24 horas; ração úmida em pequenas porções.',
  observations: 'Paciente dócil, coração e pulmões sem alterações.',
  follow_up: 'Retorno em sete dias para reavaliação.',
};

describe.skipIf(!soffice)('the RTF export read by LibreOffice', async () => {
  const { app, db } = await createTestApp();
  const clinic = await createClinicWithKeys(db.database);
  const work = mkdtempSync(path.join(tmpdir(), 'vetflow-rtf-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** A completed note with all six standard sections, written through the pipeline's own repo calls. */
  async function completedNote() {
    const note = await insertNote(
      {
        clinicId: clinic.clinicId,
        name: 'Tóbi',
        gender: 'male',
        externalId: 'PAC-ç-7',
        audioKey: 'unused',
        audioFormat: 'mp3',
        audioBytes: 1,
        audioSha256: '0'.repeat(64),
        audioDurationSeconds: 30,
      },
      db.database.db,
    );
    await claimForProcessing(note.id, db.database.db);
    const transcript = { text: '', language: 'pt', duration_seconds: 30, segments: [], provider: 'test', model: null };
    const sections = SECTION_LABELS.map((label) => ({ label, title: SECTION_TITLES[label], content: CONTENTS[label], evidence: [] }));
    const written = { style: 'verbatim' as const, sections, reviewFlags: [] };
    const outcomes = noteOutcomes({ db: db.database.db, events: NO_NOTE_EVENTS });
    expect(await outcomes.complete(note.id, transcript, written)).toBe(true);
    return note;
  }

  async function convert(file: string, to: string, outputExtension: string): Promise<string> {
    const profile = `file://${path.join(work, 'profile')}`;
    await promisify(execFile)(
      soffice!,
      ['--headless', '--norestore', `-env:UserInstallation=${profile}`, '--convert-to', to, '--outdir', work, file],
      { timeout: 90_000 },
    );
    return readFileSync(file.replace(/\.rtf$/, `.${outputExtension}`), 'utf8');
  }

  it('keeps every title and accented word, with blue bold sans-serif titles and coloured serif sections', {
    timeout: 120_000,
  }, async () => {
    const { id, createdAt } = await completedNote();
    const response = await app.inject({
      method: 'GET',
      url: `/notes/v1/notes/${id}/export?format=rtf`,
      headers: { 'x-api-key': clinic.viewer },
    });
    expect(response.statusCode).toBe(200);
    const file = path.join(work, 'note.rtf');
    writeFileSync(file, response.rawPayload);

    const text = (await convert(file, 'txt:Text (encoded):UTF8', 'txt')).replace(/^\uFEFF/, '');
    const lines = text.split(/\r?\n/).filter(Boolean);
    expect(lines.slice(0, 5)).toEqual([
      'Paciente: Tóbi',
      'Sexo: Macho',
      `Data: ${createdAt.toISOString().slice(0, 10)}`,
      'ID externo: PAC-ç-7',
      'Rascunho — não assinado',
    ]);
    const expected = SECTION_LABELS.flatMap((label) => [SECTION_TITLES[label], ...CONTENTS[label].split('\n')]);
    expect(lines.slice(5)).toEqual(expected);
    for (const word of ['Diagnóstico', 'Observações', 'Exame Físico', 'Tóbi', 'vômito', 'à palpação', 'porções', '°C', '{aguda}', '\\']) {
      expect(text).toContain(word);
    }

    const fodt = await convert(file, 'fodt', 'fodt');
    // LibreOffice keeps font names but not the \fswiss/\froman family hints (every face comes out
    // "roman"), so the families are checked in the RTF text (export.test.ts) and the names here.
    for (const label of SECTION_LABELS) {
      expect(textStyleOf(fodt, SECTION_TITLES[label]), label).toMatchObject({
        'fo:color': '#0038a8',
        'style:font-name': 'Arial',
        'fo:font-weight': 'bold',
      });
    }
    const bodies = SECTION_LABELS.map((label) => textStyleOf(fodt, CONTENTS[label].split('\n')[0]!));
    for (const body of bodies) {
      expect(body['style:font-name']).toBe('Times New Roman');
      expect(body['fo:font-weight']).toBeUndefined();
    }
    const colours = bodies.map((body) => body['fo:color']);
    expect(new Set([...colours, '#0038a8']).size, colours.join(' ')).toBe(SECTION_LABELS.length + 1);
  });

  it('shows a signed, amended note with its "Adendo" blocks and signature, in the title style', { timeout: 120_000 }, async () => {
    const { id } = await completedNote();
    const editor = as(clinic.editor);
    const signer = { name: 'Dra. Inês Araújo', license: 'CRMV-MG 9876' };
    const signed = await app.inject({ method: 'POST', url: `/notes/v1/notes/${id}/sign`, headers: editor, payload: { signed_by: signer } });
    expect(signed.statusCode, signed.body).toBe(200);
    const diagnosis = signed.json().data.note_sections.find((section: { label: string }) => section.label === 'diagnosis');
    const amended = await app.inject({
      method: 'POST',
      url: `/notes/v1/notes/${id}/amendments`,
      headers: editor,
      payload: {
        section_id: diagnosis.id,
        content: 'Gastrite aguda confirmada.',
        reason: 'Resultado do exame: gastrite',
        signed_by: signer,
      },
    });
    expect(amended.statusCode, amended.body).toBe(201);
    const response = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/export?format=rtf`, headers: editor });
    const file = path.join(work, 'signed.rtf');
    writeFileSync(file, response.rawPayload);

    const text = (await convert(file, 'txt:Text (encoded):UTF8', 'txt')).replace(/^\uFEFF/, '');
    const lines = text.split(/\r?\n/).filter(Boolean);
    expect(text).not.toContain('Rascunho');
    expect(lines).toContain('Gastrite aguda confirmada.');
    const adendo = lines.indexOf('Adendo 1 — Diagnóstico');
    expect(adendo).toBeGreaterThan(0);
    expect(lines.slice(adendo + 1, adendo + 3)).toEqual([
      'Motivo: Resultado do exame: gastrite',
      expect.stringMatching(/^Por: Dra\. Inês Araújo — CRMV-MG 9876 em \d\d\/\d\d\/\d{4} \d\d:\d\d UTC$/),
    ]);
    const signature = lines.indexOf('Assinatura');
    expect(lines[signature + 1]).toMatch(/^Assinado por Dra\. Inês Araújo — CRMV-MG 9876 em \d\d\/\d\d\/\d{4} \d\d:\d\d UTC$/);
    expect(lines[signature + 2]).toBe(`SHA-256 na assinatura: ${signed.json().data.signature.content_sha256}`);
    expect(lines[signature + 3]).toContain(amended.json().data.content_sha256);

    const fodt = await convert(file, 'fodt', 'fodt');
    for (const title of ['Adendo 1 — Diagnóstico', 'Assinatura']) {
      expect(textStyleOf(fodt, title), title).toMatchObject({
        'fo:color': '#0038a8',
        'style:font-name': 'Arial',
        'fo:font-weight': 'bold',
      });
    }
  });
});

/** The text properties LibreOffice gave the span holding exactly `content`. */
function textStyleOf(fodt: string, content: string): Record<string, string> {
  const escaped = content.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const span = new RegExp(`<text:span text:style-name="([^"]+)">${escapeRegExp(escaped)}</text:span>`).exec(fodt);
  expect(span, content).not.toBeNull();
  const style = new RegExp(
    `<style:style style:name="${escapeRegExp(span![1]!)}" style:family="text">\\s*<style:text-properties ([^>]*)/>`,
  ).exec(fodt);
  expect(style, `style of ${content}`).not.toBeNull();
  return Object.fromEntries([...style![1]!.matchAll(/([\w:-]+)="([^"]*)"/g)].map((match) => [match[1]!, match[2]!]));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
