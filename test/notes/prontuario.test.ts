import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { verifyRecordText } from '../../src/notes/export/verify-file.ts';
import type { Plan } from '../../src/notes/store/plan.schemas.ts';
import { createTestApp } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { completedNote } from '../helpers/record-notes.ts';

// The patient's record over HTTP: a patient with a draft, a signed note and a note signed and amended
// twice, exported as PDF (read back with pdftotext, as a person's PDF reader would) and as TXT.

const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra Clínica');

const ANA = { name: 'Dra. Ana Conceição', license: 'CRMV-SP 12345' };
const BRUNO = { name: 'Dr. Bruno Lima', license: 'CRMV-RJ 5432' };
const PLAN: Plan = {
  medications: [
    {
      id: '00000000-0000-4000-8000-000000000001',
      text: 'amoxicilina vinte miligramas por quilo a cada doze horas por sete dias',
      evidence: null,
      drug: 'amoxicilina',
      dose_value: 20,
      dose_unit: 'mg/kg',
      route: 'oral',
      interval_hours: 12,
      duration_days: 7,
      status: 'prescribed',
      computed_total: null,
    },
  ],
  exams: [{ id: '00000000-0000-4000-8000-000000000002', text: 'hemograma', evidence: null, code: 'cbc' }],
  vaccines: [{ id: '00000000-0000-4000-8000-000000000003', text: 'antirrábica', evidence: null, code: 'rabies', status: 'administered' }],
  follow_ups: [
    {
      id: '00000000-0000-4000-8000-000000000004',
      text: 'retorno em quinze dias',
      evidence: null,
      kind: 'recheck',
      due_in_days: 15,
      due_date: '2026-12-22',
    },
  ],
};
const TEMPERATURE = { code: 'temperature', value: 39.8, unit: '°C', comparator: null, text: 'febre a 39,8', flag: 'high', evidence: null };

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, key: string, payload?: object) =>
  app.inject({ method, url: `/notes/v1${url}`, headers: as(key), ...(payload ? { payload } : {}) });
const recordOf = (externalId: string, format: string, key = clinic.viewer) =>
  call('GET', `/patients/${encodeURIComponent(externalId)}/record?format=${format}`, key);
const pdfText = (pdf: Buffer) => execFileSync('pdftotext', ['-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');
const sectionsOf = async (id: string) =>
  (await call('GET', `/notes/${id}`, clinic.viewer)).json().data.note_sections as { id: string; title: string }[];

await call('PATCH', '/settings', clinic.admin, {
  clinic_profile: {
    name: 'Clínica Veterinária São Francisco',
    address: 'Rua das Acácias, 120 — São Paulo/SP',
    phone: '+55 (11) 3456-7890',
    crmv_registration: 'CRMV-SP 9876',
  },
});

// Oldest first: the draft, then the signed note, then the one amended twice.
const draft = await completedNote(db.database, {
  clinicId: clinic.clinicId,
  name: 'Tóbi',
  externalId: 'PAC-7',
  sections: [['Anamnese', 'Tutora relata coceira intensa há três dias.']],
});
const signed = await completedNote(db.database, {
  clinicId: clinic.clinicId,
  name: 'Tóbi',
  externalId: 'PAC-7',
  species: 'canine',
  vitals: [TEMPERATURE],
  plan: PLAN,
  sections: [
    ['Anamnese', 'Apetite diminuído e vômito ocasional.'],
    ['Exame físico', 'Mucosas róseas; linfonodos sem alteração; 2º dia de febre a 39,8 °C.'],
  ],
});
const amended = await completedNote(db.database, {
  clinicId: clinic.clinicId,
  name: 'Tóbi',
  externalId: 'PAC-7',
  metadata: [{ key: 'owner_name', value: 'Joana Gonçalves' }],
  sections: [
    ['Diagnóstico', 'Suspeita de otite externa bilateral.'],
    ['Tratamento', 'Limpeza otológica diária por sete dias.'],
  ],
});
const elsewhere = await completedNote(db.database, {
  clinicId: other.clinicId,
  name: 'Outro Tóbi',
  externalId: 'PAC-7',
  sections: [['Anamnese', 'Registro de outra clínica.']],
});

expect((await call('POST', `/notes/${signed}/sign`, clinic.editor, { signed_by: ANA })).statusCode).toBe(200);
expect((await call('POST', `/notes/${amended}/sign`, clinic.editor, { signed_by: ANA })).statusCode).toBe(200);
const treatment = (await sectionsOf(amended)).find((section) => section.title === 'Tratamento');
for (const [content, reason] of [
  ['Limpeza otológica diária por dez dias.', 'Duração corrigida após reavaliação'],
  ['Limpeza otológica diária por dez dias; colar elizabetano.', 'Acréscimo do colar'],
] as const) {
  const answer = await call('POST', `/notes/${amended}/amendments`, clinic.editor, {
    section_id: treatment?.id,
    content,
    reason,
    signed_by: BRUNO,
  });
  expect(answer.statusCode).toBe(201);
}

const historyOf = async (id: string, key = clinic.viewer) =>
  (await call('GET', `/notes/${id}/history`, key)).json().data as { event: string; details: Record<string, unknown> }[];

describe('GET /notes/v1/patients/{external_id}/record', () => {
  it('answers a PDF a person reads: clinic, patient and tutor, every note oldest first, the draft marked, amendments in place, pages numbered', async () => {
    const response = await recordOf('PAC-7', 'pdf');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    const today = new Date().toISOString().slice(0, 10);
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="prontuario-PAC-7-${today}.pdf"; filename*=UTF-8''prontuario-PAC-7-${today}.pdf`,
    );
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfText(response.rawPayload);
    const flat = text.replace(/\s+/g, ' ');
    for (const words of [
      'Clínica Veterinária São Francisco',
      'Rua das Acácias, 120 — São Paulo/SP',
      'CRMV-SP 9876',
      'Prontuário',
      'Paciente: Tóbi',
      'Tutor(a): Joana Gonçalves',
      'Espécie: Canina',
      'Tutora relata coceira intensa há três dias.',
      'Mucosas róseas; linfonodos sem alteração; 2º dia de febre a 39,8 °C.',
      'Temperatura: 39,8 °C [ALTO]',
      'Amoxicilina — 20 mg/kg, via oral, a cada 12 horas (2x ao dia), por 7 dias',
      'Hemograma',
      'Antirrábica — aplicada',
      '22/12/2026 (em 15 dias) — Reavaliação: retorno em quinze dias',
      `Assinado por ${ANA.name} — ${ANA.license}`,
      'Duração corrigida após reavaliação',
      'Acréscimo do colar',
      `${BRUNO.name} (${BRUNO.license})`,
      '“Limpeza otológica diária por sete dias.”',
      'Limpeza otológica diária por dez dias; colar elizabetano.',
    ]) {
      expect(flat, words).toContain(words);
    }
    // Oldest first, each consultation numbered; the draft is marked and carries no signature.
    const first = flat.indexOf('Atendimento 1 de 3');
    const second = flat.indexOf('Atendimento 2 de 3');
    const third = flat.indexOf('Atendimento 3 de 3');
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(third).toBeGreaterThan(second);
    const draftPart = flat.slice(first, second);
    expect(draftPart).toContain('RASCUNHO — NÃO ASSINADO');
    expect(draftPart).toContain('Rascunho: não assinado por veterinário');
    expect(draftPart).not.toContain('Assinado por');
    expect(flat.slice(second, third)).not.toContain('RASCUNHO');
    // The amendments sit under the section they changed, in order, before the signature.
    const amendedPart = flat.slice(third);
    expect(amendedPart.indexOf('Tratamento')).toBeLessThan(amendedPart.indexOf('Adendo 1'));
    expect(amendedPart.indexOf('Adendo 1')).toBeLessThan(amendedPart.indexOf('Adendo 2'));
    expect(amendedPart.indexOf('Adendo 2')).toBeLessThan(amendedPart.indexOf('Assinatura'));
    // Another clinic's note of the same external id is not in it.
    expect(flat).not.toContain('Registro de outra clínica');
    // Every page has its footer: the record's hash and "página N de M".
    const pages = Number(/página 1 de (\d+)/.exec(flat)?.[1]);
    expect(pages).toBeGreaterThanOrEqual(1);
    for (let page = 1; page <= pages; page++) expect(flat).toContain(`página ${page} de ${pages}`);
    expect(text.split('\f').filter((page) => page.trim() !== '')).toHaveLength(pages);
    expect(flat).toMatch(/SHA-256 do prontuário: [0-9a-f]{64}/);
  });

  it('prints the documented record hash in the footer: SHA-256 of "<note id> <latest hash>" lines, "rascunho" for a draft', async () => {
    const { createHash } = await import('node:crypto');
    const latest = async (id: string) => {
      const note = (await call('GET', `/notes/${id}`, clinic.viewer)).json().data;
      const amendments = (await call('GET', `/notes/${id}/amendments`, clinic.viewer)).json().data as { content_sha256: string }[];
      return amendments.at(-1)?.content_sha256 ?? note.signature?.content_sha256 ?? 'rascunho';
    };
    const lines = [];
    for (const id of [draft, signed, amended]) lines.push(`${id} ${await latest(id)}\n`);
    const expected = createHash('sha256').update(lines.join('')).digest('hex');
    const text = (await recordOf('PAC-7', 'txt')).payload;
    expect(text).toContain(`SHA-256 do prontuário: ${expected}`);
    expect(pdfText((await recordOf('PAC-7', 'pdf')).rawPayload)).toContain(expected);
  });

  it('answers TXT: UTF-8, the heading, every note in order with its receituário, the draft marked', async () => {
    const response = await recordOf('PAC-7', 'txt');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="prontuario-PAC-7-\d{4}-\d{2}-\d{2}\.txt"/);
    const text = response.payload;
    expect(text).toMatch(/^Clínica Veterinária São Francisco\n/);
    expect(text).toContain('Tutor(a): Joana Gonçalves');
    const at = (needle: string) => text.indexOf(needle);
    expect(at('Atendimento 1 de 3')).toBeLessThan(at('Atendimento 2 de 3'));
    expect(at('Atendimento 2 de 3')).toBeLessThan(at('Atendimento 3 de 3'));
    const draftPart = text.slice(at('Atendimento 1 de 3'), at('Atendimento 2 de 3'));
    expect(draftPart).toContain('Situação: RASCUNHO — NÃO ASSINADO');
    expect(draftPart).not.toContain('Assinado por');
    expect(text).toContain('1. Amoxicilina — 20 mg/kg, via oral, a cada 12 horas (2x ao dia), por 7 dias');
    // Amendments in place: under the section they changed, oldest first, the replaced text quoted, before the signature.
    const amendedPart = text.slice(at('Atendimento 3 de 3'));
    const place = (needle: string) => amendedPart.indexOf(needle);
    expect(place('Tratamento\n----------\nLimpeza otológica diária por dez dias; colar elizabetano.\n  [Adendo 1 — ')).toBeGreaterThan(0);
    expect(place('Motivo: Duração corrigida após reavaliação')).toBeLessThan(place('"Limpeza otológica diária por sete dias."'));
    expect(place('"Limpeza otológica diária por sete dias."')).toBeLessThan(place('[Adendo 2 — '));
    expect(place('Motivo: Acréscimo do colar')).toBeLessThan(place('Assinatura\n'));
    expect(amendedPart).toContain(`${BRUNO.name} (${BRUNO.license})`);
    expect(amendedPart).toMatch(/SHA-256 atual \(após 2 adendo\(s\)\): [0-9a-f]{64}/);
  });

  it("answers FHIR R4: a collection of each note's document, oldest first, whose every hash chain verifies offline", async () => {
    const response = await recordOf('PAC-7', 'fhir');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/fhir+json');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="prontuario-PAC-7-\d{4}-\d{2}-\d{2}\.fhir\.json"/);
    const bundle = response.json();
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'collection' });
    const documents = bundle.entry.map(
      (entry: { resource: { type: string; entry: { resource: { resourceType: string; status?: string } }[] } }) => {
        expect(entry.resource.type).toBe('document');
        return entry.resource.entry.find((inner) => inner.resource.resourceType === 'Composition')?.resource.status;
      },
    );
    // The draft is preliminary, the signed note final, the one amended twice amended.
    expect(documents).toEqual(['preliminary', 'final', 'amended']);
    expect(verifyRecordText(response.payload)).toEqual({ notes: 3, links: 4, verified: true });
    // One amendment's reason changed in the file: verification names that note and link.
    const tampered = response.payload.replace('Acréscimo do colar', 'Acréscimo de outra coisa');
    expect(tampered).not.toBe(response.payload);
    expect(verifyRecordText(tampered)).toMatchObject({ verified: false, broken: { note_id: amended } });
  });

  it('records one exported event per note, with the format', async () => {
    const before = await Promise.all([draft, signed, amended].map(async (id) => (await historyOf(id)).length));
    expect((await recordOf('PAC-7', 'txt')).statusCode).toBe(200);
    for (const [index, id] of [draft, signed, amended].entries()) {
      const history = await historyOf(id);
      expect(history).toHaveLength((before[index] ?? 0) + 1);
      expect(history.at(-1)).toMatchObject({ event: 'exported', details: { format: 'txt', record: true } });
    }
  });

  it('refuses another format with 422 VALIDATION_ERROR, and an unknown patient with 404 PATIENT_NOT_FOUND', async () => {
    for (const format of ['rtf', 'odt', 'PDF', '']) {
      const response = await recordOf('PAC-7', format);
      expect(response.statusCode, format).toBe(422);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: expect.stringContaining('format') } });
    }
    const missing = await recordOf('PAC-404', 'pdf');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'PATIENT_NOT_FOUND' });
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
  });

  it("keeps clinics apart: another clinic's key sees only its own patient PAC-7, and 404 for a patient only this clinic has", async () => {
    await completedNote(db.database, {
      clinicId: clinic.clinicId,
      name: 'Mel',
      externalId: 'PAC-ONLY-HERE',
      sections: [['Anamnese', 'Só nesta clínica.']],
    });
    expect((await recordOf('PAC-ONLY-HERE', 'txt', other.viewer)).json()).toMatchObject({ code: 'PATIENT_NOT_FOUND' });
    const theirs = await recordOf('PAC-7', 'txt', other.viewer);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.payload).toContain('Registro de outra clínica.');
    expect(theirs.payload).not.toContain('Tutora relata coceira');
    expect((await historyOf(elsewhere, other.viewer)).at(-1)).toMatchObject({ event: 'exported' });
  });
});

describe('GET /notes/v1/notes/{id}/export?format=pdf', () => {
  it('answers one note as the record PDF, and records the export', async () => {
    const response = await call('GET', `/notes/${amended}/export?format=pdf`, clinic.viewer);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="Tobi-\d{4}-\d{2}-\d{2}\.pdf"/);
    const flat = pdfText(response.rawPayload).replace(/\s+/g, ' ');
    expect(flat).toContain('Atendimento 1 de 1');
    expect(flat).toContain('Diagnóstico Suspeita de otite externa bilateral.');
    expect(flat).toContain('Adendo 2');
    expect(flat).toContain('página 1 de 1');
    expect((await historyOf(amended)).at(-1)).toMatchObject({ event: 'exported', details: { format: 'pdf' } });
    const bad = await call('GET', `/notes/${amended}/export?format=odt`, clinic.viewer);
    expect(bad.json()).toMatchObject({ code: 'INVALID_PARAMETER', details: { expected: ['txt', 'rtf', 'pdf', 'json', 'fhir'] } });
  });
});

describe('clinic_profile in /settings', () => {
  it('is shown, replaced whole, validated and removed', async () => {
    const shown = (await call('GET', '/settings', clinic.viewer)).json().data.clinic_profile;
    expect(shown).toEqual({
      name: 'Clínica Veterinária São Francisco',
      address: 'Rua das Acácias, 120 — São Paulo/SP',
      phone: '+55 (11) 3456-7890',
      crmv_registration: 'CRMV-SP 9876',
    });
    const replaced = await call('PATCH', '/settings', other.admin, { clinic_profile: { name: '  Outra Clínica  ' } });
    expect(replaced.json().data.clinic_profile).toEqual({ name: 'Outra Clínica', address: null, phone: null, crmv_registration: null });
    for (const profile of [{ name: '' }, { name: 'X', phone: 'ligue já' }, { name: 'X', extra: 1 }, { address: 'sem nome' }]) {
      const refused = await call('PATCH', '/settings', other.admin, { clinic_profile: profile });
      expect(refused.statusCode, JSON.stringify(profile)).toBe(422);
      expect(refused.json().code).toBe('VALIDATION_ERROR');
    }
    expect((await call('PATCH', '/settings', other.editor, { clinic_profile: { name: 'X' } })).statusCode).toBe(403);
    const removed = await call('PATCH', '/settings', other.admin, { clinic_profile: null });
    expect(removed.json().data.clinic_profile).toBeNull();
    // The unchanged clinic keeps its own.
    expect((await call('GET', '/settings', clinic.viewer)).json().data.clinic_profile.name).toBe('Clínica Veterinária São Francisco');
  });
});

describe('a 200-note patient', () => {
  it('exports every note, numbered pages, with the heap bounded (loosely: notes are read in batches and pages streamed)', {
    timeout: 180_000,
  }, async () => {
    const sections: [string, string][] = [
      ['Anamnese', 'Tutora relata vômitos há três dias, apetite diminuído, sem diarreia. Vacinação em dia.'],
      ['Exame Físico', 'Mucosas róseas, TPC 2 s, desidratação leve (5%), dor à palpação abdominal cranial.'],
      ['Tratamento', 'Omeprazol 1 mg/kg a cada 24 h por 7 dias; dieta leve em pequenas porções.'],
    ];
    for (let i = 0; i < 200; i++) {
      await completedNote(db.database, { clinicId: clinic.clinicId, name: 'Paçoca', externalId: 'PAC-200', sections, plan: PLAN });
    }
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 5);
    const response = await recordOf('PAC-200', 'pdf');
    clearInterval(sampler);
    expect(response.statusCode).toBe(200);
    const flat = pdfText(response.rawPayload).replace(/\s+/g, ' ');
    expect(flat).toContain('Atendimento 1 de 200');
    expect(flat).toContain('Atendimento 200 de 200');
    const pages = Number(/página 1 de (\d+)/.exec(flat)?.[1]);
    expect(pages).toBeGreaterThan(20);
    expect(flat).toContain(`página ${pages} de ${pages}`);
    // The whole PDF of 200 notes is a few MB; the heap must not grow by much more than the answer itself,
    // which app.inject keeps whole (a real client reads it as it comes).
    const growth = peak - before;
    expect(growth, `heap grew ${(growth / 1e6).toFixed(1)} MB for a ${(response.rawPayload.length / 1e6).toFixed(1)} MB PDF`).toBeLessThan(
      64_000_000 + 4 * response.rawPayload.length,
    );
  });
});
