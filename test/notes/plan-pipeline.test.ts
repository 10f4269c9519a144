import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { putPart } from '../helpers/live-notes.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { chatCompletion, json, startFakeServer } from '../providers/fake-openai-server.ts';

// The plan through the pipeline, as a new user meets it: a dictated consultation uploaded on a known
// visit date comes back with its plan (every field), the export prints the receituário and the
// worklist lists the recheck; the vet's section edits and amendments re-read the plan from the new
// words; a clinical draft whose dose differs from the plan is flagged. A local server speaks the
// transcription and chat protocols (the sandbox's consultations are chosen by hash).

const CONSULTATION = [
  { start: 0, end: 7.5, text: 'Thor, cão de seis anos, peso de 32,4 kg, com dor no joelho há uma semana.' },
  { start: 7.5, end: 15.2, text: 'Vou prescrever meloxicam 0,1 mg/kg por via oral a cada 24 horas por cinco dias.' },
  { start: 15.2, end: 23.9, text: 'E amoxicilina com clavulanato, um comprimido de doze em doze horas por dez dias.' },
  { start: 23.9, end: 29.0, text: 'Vou pedir um hemograma completo.' },
  { start: 29.0, end: 34.6, text: 'Hoje já apliquei a vacina antirrábica.' },
  { start: 34.6, end: 39.0, text: 'Retorno em 15 dias para reavaliar.' },
];

let segments = CONSULTATION;
let draft: unknown = { sections: [] };
/** Transcription requests to refuse (400: the note fails at once) before answering again. */
let refusals = 0;
const remote = await startFakeServer();
afterAll(() => remote.close());
remote.handle((request, response) => {
  if (request.path.endsWith('/audio/transcriptions')) {
    if (refusals > 0) {
      refusals--;
      return json(response, 400, { error: { message: 'unsupported audio' } });
    }
    return json(response, 200, { text: segments.map((s) => s.text).join(' '), language: 'portuguese', duration: 39, segments });
  }
  return json(response, 200, chatCompletion(draft));
});

const { app, db } = await createTestApp({
  startWorkers: true,
  env: {
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: remote.baseUrl,
    TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
    DRAFTING_PROVIDER: 'openai',
    DRAFTING_BASE_URL: remote.baseUrl,
    DRAFTING_MODEL: 'llama3.1:8b',
  },
});
const clinic = await createClinicWithKeys(db.database);
const ANA = { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' };

const fetchNote = async (id: string) =>
  (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}`, headers: as(clinic.viewer) })).json().data;

async function settle(metadata: object, said = CONSULTATION) {
  segments = said;
  const id = await uploadNote(app, clinic.editor, metadata, 'consultation.m4a');
  expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
  return fetchNote(id);
}

const editSection = (section: { id: string; title: string; order: string }, content: string) =>
  app.inject({
    method: 'PATCH',
    url: `${PREFIX}/note_sections?section_id=${section.id}`,
    headers: as(clinic.editor),
    payload: { title: section.title, content, order: section.order },
  });

/** The note's section that holds `words`. */
const sectionWith = (note: { note_sections: { id: string; title: string; order: string; content: string }[] }, words: string) => {
  const section = note.note_sections.find((candidate) => candidate.content.includes(words));
  expect(section, `a section says "${words}"`).toBeDefined();
  return section!;
};

describe('a dictated consultation, as a new user tries it', () => {
  it('comes back with its plan, prints the receituário, and the worklist of that week lists the recheck', async () => {
    const note = await settle({ name: 'Thor', species: 'canine', external_id: 'pac-thor', visit_date: '2026-12-07' });
    expect(note.visit_date).toBe('2026-12-07');
    const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const within = (segment: number) => ({ start: CONSULTATION[segment]!.start, end: CONSULTATION[segment]!.end });
    expect(note.plan).toEqual({
      medications: [
        {
          id: uuid,
          text: expect.stringContaining('meloxicam 0,1 mg/kg por via oral a cada 24 horas por cinco dias'),
          evidence: within(1),
          drug: 'meloxicam',
          dose_value: 0.1,
          dose_unit: 'mg/kg',
          route: 'oral',
          interval_hours: 24,
          duration_days: 5,
          status: 'prescribed',
          computed_total: { value: 3.24, unit: 'mg' },
        },
        {
          id: uuid,
          text: expect.stringContaining('amoxicilina com clavulanato, um comprimido de doze em doze horas por dez dias'),
          evidence: within(2),
          drug: 'amoxicilina com clavulanato',
          dose_value: 1,
          dose_unit: 'comprimido',
          route: 'oral',
          interval_hours: 12,
          duration_days: 10,
          status: 'prescribed',
          computed_total: null,
        },
      ],
      exams: [{ id: uuid, text: expect.stringContaining('hemograma'), evidence: within(3), code: 'cbc' }],
      vaccines: [{ id: uuid, text: expect.stringContaining('antirrábica'), evidence: within(4), code: 'rabies', status: 'administered' }],
      follow_ups: [
        {
          id: uuid,
          text: expect.stringContaining('Retorno em 15 dias'),
          evidence: within(5),
          kind: 'recheck',
          due_in_days: 15,
          due_date: '2026-12-22',
        },
      ],
    });

    const txt = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${note.id}/export?format=txt`, headers: as(clinic.viewer) })).body;
    expect(txt).toContain(
      [
        'Prescrição',
        '----------',
        '1. Meloxicam — 0,1 mg/kg (total 3,24 mg), via oral, a cada 24 horas (1x ao dia), por 5 dias',
        '2. Amoxicilina com clavulanato — 1 comprimido, via oral, a cada 12 horas (2x ao dia), por 10 dias',
        '',
        'Exames solicitados',
        '------------------',
        '- Hemograma',
        '',
        'Vacinas',
        '-------',
        '- Antirrábica — aplicada',
        '',
        'Retorno',
        '-------',
        '- 22/12/2026 (em 15 dias) — Reavaliação: ',
      ].join('\n'),
    );
    const rtf = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${note.id}/export?format=rtf`, headers: as(clinic.viewer) })).body;
    expect(rtf).toContain('1. Meloxicam \\u8212? 0,1 mg/kg (total 3,24 mg), via oral, a cada 24 horas (1x ao dia), por 5 dias\\par');

    const week = await app.inject({
      method: 'GET',
      url: `${PREFIX}/follow_ups?due_from=2026-12-21&due_to=2026-12-27`,
      headers: as(clinic.viewer),
    });
    expect(week.json().data).toContainEqual({
      note_id: note.id,
      external_id: 'pac-thor',
      name: 'Thor',
      species: 'canine',
      kind: 'recheck',
      due_date: '2026-12-22',
      text: note.plan.follow_ups[0].text,
    });
  });
});

describe('every way a note completes', () => {
  const drugs = (note: { plan: { medications: { drug: string }[] } }) => note.plan.medications.map((item) => item.drug);

  it('a live note, with the visit date of its body', async () => {
    segments = CONSULTATION;
    const created = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/live`,
      headers: as(clinic.editor),
      payload: { name: 'Ao vivo', visit_date: '2026-11-30' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id;
    expect((await putPart(app, clinic.editor, id, 1)).statusCode).toBe(201);
    const completed = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/${id}/complete`,
      headers: as(clinic.editor),
      payload: { parts: 1 },
    });
    expect(completed.statusCode, completed.body).toBe(202);
    expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
    const note = await fetchNote(id);
    expect(drugs(note)).toEqual(['meloxicam', 'amoxicilina com clavulanato']);
    expect(note.plan.follow_ups).toEqual([expect.objectContaining({ due_in_days: 15, due_date: '2026-12-15' })]);
  });

  it('a failed note retried: null plan while failed, the plan once the retry completes', async () => {
    refusals = 1;
    segments = CONSULTATION;
    const id = await uploadNote(app, clinic.editor, { name: 'Repetida', visit_date: '2026-10-01' }, 'consultation.m4a');
    expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('failed');
    expect((await fetchNote(id)).plan).toBeNull();
    const retried = await app.inject({ method: 'POST', url: `${PREFIX}/notes/${id}/retry`, headers: as(clinic.editor) });
    expect(retried.statusCode, retried.body).toBe(202);
    expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
    const note = await fetchNote(id);
    expect(drugs(note)).toEqual(['meloxicam', 'amoxicilina com clavulanato']);
    const due = await app.inject({
      method: 'GET',
      url: `${PREFIX}/follow_ups?due_from=2026-10-16&due_to=2026-10-16`,
      headers: as(clinic.viewer),
    });
    expect(due.json().data).toEqual([expect.objectContaining({ note_id: id, kind: 'recheck' })]);
  });
});

describe('the vet corrects the words', () => {
  it('a section edit re-reads the plan from the edited words; what it did not touch keeps its id and evidence', async () => {
    const note = await settle({ name: 'Editado', visit_date: '2026-12-07' });
    const meloxicam = note.plan.medications.find((item: { drug: string }) => item.drug === 'meloxicam');
    const amoxicilina = note.plan.medications.find((item: { drug: string }) => item.drug !== 'meloxicam');
    const section = sectionWith(note, 'amoxicilina');
    const edited = await editSection(
      section,
      section.content
        .replace('um comprimido de doze em doze horas', 'meio comprimido de oito em oito horas')
        .replace('Retorno em 15 dias', 'Retorno em 30 dias'),
    );
    expect(edited.statusCode, edited.body).toBe(200);
    const after = await fetchNote(note.id);
    expect(after.plan.medications).toContainEqual(meloxicam);
    const changed = after.plan.medications.find((item: { drug: string }) => item.drug === 'amoxicilina com clavulanato');
    expect(changed).toMatchObject({ dose_value: 0.5, dose_unit: 'comprimido', interval_hours: 8, duration_days: 10, evidence: null });
    expect(changed.id).not.toBe(amoxicilina.id);
    expect(after.plan.medications).toHaveLength(2);
    if (section.content.includes('Retorno em 15 dias')) {
      expect(after.plan.follow_ups).toEqual([expect.objectContaining({ due_in_days: 30, due_date: '2027-01-06', evidence: null })]);
      const worklist = await app.inject({
        method: 'GET',
        url: `${PREFIX}/follow_ups?due_from=2027-01-06&due_to=2027-01-06`,
        headers: as(clinic.viewer),
      });
      expect(worklist.json().data.map((item: { note_id: string }) => item.note_id)).toContain(note.id);
    }
    // Untouched lists keep their items as they were.
    expect(after.plan.exams).toEqual(note.plan.exams);
    expect(after.plan.vaccines).toEqual(note.plan.vaccines);
  });

  it('an edit of the weight said recomputes the per-kg totals, and nothing else', async () => {
    const note = await settle({ name: 'Pesado', visit_date: '2026-12-07' });
    const section = sectionWith(note, 'peso de 32,4 kg');
    const edited = await editSection(section, section.content.replace('peso de 32,4 kg', 'peso de 30 kg'));
    expect(edited.statusCode, edited.body).toBe(200);
    const after = await fetchNote(note.id);
    expect(after.vitals).toContainEqual(expect.objectContaining({ code: 'weight', value: 30 }));
    expect(after.plan.medications).toEqual(
      note.plan.medications.map((item: { computed_total: unknown }) => ({
        ...item,
        computed_total: item.computed_total === null ? null : { value: 3, unit: 'mg' },
      })),
    );
    expect(after.plan.follow_ups).toEqual(note.plan.follow_ups);
  });

  it('an amendment of a signed note re-reads the plan the same way', async () => {
    const note = await settle({ name: 'Emendado', visit_date: '2026-12-07' });
    const signed = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/${note.id}/sign`,
      headers: as(clinic.editor),
      payload: { signed_by: ANA, acknowledge_flags: true },
    });
    expect(signed.statusCode, signed.body).toBe(200);
    const section = sectionWith(note, 'meloxicam');
    const amended = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/${note.id}/amendments`,
      headers: as(clinic.editor),
      payload: {
        section_id: section.id,
        content: section.content.replace('meloxicam 0,1 mg/kg', 'meloxicam 0,05 mg/kg'),
        reason: 'dose corrigida',
        signed_by: ANA,
      },
    });
    expect(amended.statusCode, amended.body).toBe(201);
    const after = await fetchNote(note.id);
    expect(after.plan.medications.filter((item: { drug: string }) => item.drug === 'meloxicam')).toEqual([
      expect.objectContaining({
        dose_value: 0.05,
        computed_total: { value: 1.62, unit: 'mg' },
        evidence: null,
      }),
    ]);
    // The plan of a signed note changes only through an amendment: PUT /plan is refused.
    const put = await app.inject({
      method: 'PUT',
      url: `${PREFIX}/notes/${note.id}/plan`,
      headers: as(clinic.editor),
      payload: after.plan,
    });
    expect(put.statusCode).toBe(409);
    expect(put.json().code).toBe('NOTE_SIGNED');
  });
});

describe('a clinical draft', () => {
  it('flags plan_mismatch for a drafted interval that differs from the plan, and a drug the plan does not hold', async () => {
    // Grounded sentences (their words are in the lines they cite) that still disagree with the plan.
    const said = [...CONSULTATION, { start: 39, end: 44, text: 'Em casa o tutor já tinha dado dipirona, meio comprimido.' }];
    draft = {
      sections: [
        {
          label: 'treatment',
          sentences: [
            { text: 'Meloxicam 0,1 mg/kg VO a cada 12 horas por 5 dias.', segments: [2, 3] },
            { text: 'Amoxicilina com clavulanato 1 comprimido a cada 12 horas por 10 dias.', segments: [3] },
            { text: 'Dipirona meio comprimido.', segments: [7] },
          ],
        },
      ],
    };
    const note = await settle({ name: 'Clínico', note_style: 'clinical', visit_date: '2026-12-07' }, said);
    expect(note.note_style).toBe('clinical');
    expect(note.note_sections[0].content).toContain('Meloxicam 0,1 mg/kg VO a cada 12 horas por 5 dias.');
    expect(note.review_flags.filter((flag: { reason: string }) => flag.reason === 'plan_mismatch')).toEqual([
      {
        section: 'treatment',
        sentence: 'Meloxicam 0,1 mg/kg VO a cada 12 horas por 5 dias.',
        reason: 'plan_mismatch',
        token: 'meloxicam a cada 12 h',
      },
      { section: 'treatment', sentence: 'Dipirona meio comprimido.', reason: 'plan_mismatch', token: 'dipirona' },
    ]);
    // The plan is the transcript's, whatever the draft says.
    expect(note.plan.medications.map((item: { drug: string; interval_hours: number }) => [item.drug, item.interval_hours])).toEqual([
      ['meloxicam', 24],
      ['amoxicilina com clavulanato', 12],
    ]);
    const txt = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${note.id}/export`, headers: as(clinic.viewer) })).body;
    expect(txt).toContain('"meloxicam a cada 12 h" difere do plano dito na consulta (ver Prescrição).');
  });
});
