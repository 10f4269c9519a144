import { describe, expect, it } from 'vitest';
import { createTestApp, eventually } from '../helpers/app.ts';
import { dictatedNote, startDictationServer } from '../helpers/dictated-notes.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { registerWebhook, startReceiver } from './webhooks-receiver.ts';

// PUT /notes/{id}/plan: the vet's correction of the plan, whole; validated by the Plan contract,
// locked by a signature, in the history; and the plan wherever the note goes (fetch, webhooks,
// TXT and RTF receituário).

// Consultations whose words hold no plan and no weight, unless a test says otherwise.
const dictation = await startDictationServer();
const { app, db } = await createTestApp({ startWorkers: true, env: dictation.env });
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');

const ANA = { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' };
const noteOf = async (id: string) =>
  (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}`, headers: as(clinic.viewer) })).json().data;
const putPlan = (id: string, payload: unknown, key = clinic.editor) =>
  app.inject({ method: 'PUT', url: `${PREFIX}/notes/${id}/plan`, headers: as(key), payload: payload as object });

const completedNote = (name: string, visitDate = '2026-12-07', text = 'Consulta de rotina. Animal ativo, sem queixas.') =>
  dictatedNote(app, clinic, dictation, { name, visit_date: visitDate, external_id: `pac-${name}` }, { text });

const MELOXICAM = {
  text: 'meloxicam zero vírgula um miligrama por quilo por via oral a cada vinte e quatro horas por cinco dias',
  drug: 'meloxicam',
  dose_value: 0.1,
  dose_unit: 'mg/kg',
  route: 'oral',
  interval_hours: 24,
  duration_days: 5,
  status: 'prescribed',
};
const AMOXICILINA = {
  text: 'amoxicilina com clavulanato meio comprimido de doze em doze horas por dez dias',
  drug: 'amoxicilina com clavulanato',
  dose_value: 0.5,
  dose_unit: 'comprimido',
  route: 'oral',
  interval_hours: 12,
  duration_days: 10,
  status: 'prescribed',
};
const PLAN = {
  medications: [
    MELOXICAM,
    AMOXICILINA,
    {
      ...MELOXICAM,
      text: 'apliquei dipirona',
      drug: 'dipirona',
      dose_value: 25,
      route: 'subcutaneous',
      interval_hours: null,
      duration_days: null,
      status: 'administered',
    },
  ],
  exams: [
    { text: 'vou pedir hemograma', code: 'cbc' },
    { text: 'e uma ultrassonografia', code: 'ultrasound' },
  ],
  vaccines: [{ text: 'apliquei a antirrábica', code: 'rabies', status: 'administered' }],
  follow_ups: [
    { text: 'retorno em 15 dias', kind: 'recheck', due_in_days: 15 },
    { text: 'se piorar, volta antes', kind: 'other', due_in_days: null },
  ],
};

describe('PUT /notes/{id}/plan', () => {
  it('replaces the plan whole: ids given or kept, evidence null, due dates from the visit date', async () => {
    const id = await completedNote('Thor');
    const before = await noteOf(id);
    expect(before.plan).toEqual({ medications: [], exams: [], vaccines: [], follow_ups: [] });
    const kept = '6f1c1c4e-8d4b-4a57-9a51-3b0f6d2f4c11';
    const response = await putPlan(id, {
      ...PLAN,
      // Derived fields sent back as a client read them are accepted and set again.
      medications: [
        { ...PLAN.medications[0], id: kept.toUpperCase(), evidence: { start: 1, end: 2 }, computed_total: { value: 99, unit: 'mg' } },
        ...PLAN.medications.slice(1),
      ],
      follow_ups: [{ ...PLAN.follow_ups[0], due_date: '2030-01-01' }, PLAN.follow_ups[1]],
    });
    expect(response.statusCode, response.body).toBe(200);
    const plan = response.json().data;
    expect(plan.medications[0]).toEqual({ ...MELOXICAM, id: kept, evidence: null, computed_total: null });
    expect(plan.medications[1]).toEqual({
      ...AMOXICILINA,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      evidence: null,
      computed_total: null,
    });
    expect(plan.exams.map((exam: { code: string }) => exam.code)).toEqual(['cbc', 'ultrasound']);
    expect(plan.vaccines).toEqual([{ ...PLAN.vaccines[0], id: expect.any(String), evidence: null }]);
    expect(plan.follow_ups).toEqual([
      { ...PLAN.follow_ups[0], id: expect.any(String), evidence: null, due_date: '2026-12-22' },
      { ...PLAN.follow_ups[1], id: expect.any(String), evidence: null, due_date: null },
    ]);
    const after = await noteOf(id);
    expect(after.plan).toEqual(plan);
    expect(after.visit_date).toBe('2026-12-07');
    expect(after.updated_at >= before.updated_at).toBe(true);
  });

  it('computes per-kg totals from the weight among the vitals', async () => {
    const id = await completedNote('Pesado', '2026-12-07', 'Peso 32,4 kg. Animal ativo.');
    expect((await noteOf(id)).vitals).toContainEqual(expect.objectContaining({ code: 'weight', value: 32.4 }));
    const plan = (await putPlan(id, { ...PLAN, medications: [{ ...MELOXICAM, dose_value: 1 }, AMOXICILINA] })).json().data;
    expect(plan.medications.map((item: { computed_total: unknown }) => item.computed_total)).toEqual([{ value: 32.4, unit: 'mg' }, null]);
  });

  it.each([
    ['a unit outside the list', { medications: [{ ...MELOXICAM, dose_unit: 'mg/m2' }] }, 'medications.0.dose_unit'],
    ['a route outside the list', { medications: [{ ...MELOXICAM, route: 'nasal' }] }, 'medications.0.route'],
    ['an unknown field on an item', { medications: [{ ...MELOXICAM, price: 10 }] }, 'medications.0'],
    ['an unknown list', { prescriptions: [] }, ''],
    ['a missing list', { exams: undefined }, 'exams'],
    ['an exam code outside the list', { exams: [{ text: 'x', code: 'mri' }] }, 'exams.0.code'],
    ['a negative dose', { medications: [{ ...MELOXICAM, dose_value: -1 }] }, 'medications.0.dose_value'],
    ['days that are not whole', { follow_ups: [{ text: 'x', kind: 'recheck', due_in_days: 1.5 }] }, 'follow_ups.0.due_in_days'],
    ['an id that is not a UUID', { vaccines: [{ ...PLAN.vaccines[0], id: 'v-1' }] }, 'vaccines.0.id'],
    ['101 exams', { exams: Array.from({ length: 101 }, () => ({ text: 'hemograma', code: 'cbc' })) }, 'exams'],
    ['empty words', { exams: [{ text: '', code: 'cbc' }] }, 'exams.0.text'],
  ])('refuses %s with 422 VALIDATION_ERROR', async (_case, change, field) => {
    const id = await completedNote('Invalido');
    const response = await putPlan(id, { medications: [], exams: [], vaccines: [], follow_ups: [], ...change });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().code).toBe('VALIDATION_ERROR');
    expect(String(response.json().details.field)).toContain(field);
    expect((await noteOf(id)).plan).toEqual({ medications: [], exams: [], vaccines: [], follow_ups: [] });
  });

  it('refuses one id twice in a plan', async () => {
    const id = await completedNote('Repetido');
    const same = '0b6f3c1e-2d4a-4e8b-9c7d-1a2b3c4d5e6f';
    const response = await putPlan(id, {
      ...PLAN,
      exams: [],
      vaccines: [{ ...PLAN.vaccines[0], id: same }],
      follow_ups: [{ ...PLAN.follow_ups[0], id: same }],
    });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'follow_ups.0.id' } });
  });

  it('answers 409 NOTE_SIGNED on a signed note, 403 for another clinic, 404 for none, and keeps the plan', async () => {
    const id = await completedNote('Assinada');
    expect((await putPlan(id, PLAN)).statusCode).toBe(200);
    const signed = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/${id}/sign`,
      headers: as(clinic.editor),
      payload: { signed_by: ANA, acknowledge_flags: true },
    });
    expect(signed.statusCode, signed.body).toBe(200);
    const locked = await putPlan(id, { medications: [], exams: [], vaccines: [], follow_ups: [] });
    expect(locked.statusCode).toBe(409);
    expect(locked.json().code).toBe('NOTE_SIGNED');
    expect((await noteOf(id)).plan.medications).toHaveLength(3);
    expect((await putPlan(id, PLAN, other.editor)).json().code).toBe('FORBIDDEN_TENANT');
    expect((await putPlan('00000000-0000-4000-8000-00000000abcd', PLAN)).json().code).toBe('NOTE_NOT_FOUND');
    expect((await putPlan(id, PLAN, clinic.viewer)).statusCode).toBe(403);
  });

  it('answers 422 NOTE_NOT_COMPLETED for a note still waiting, whose plan stays null', async () => {
    const created = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/live`,
      headers: as(clinic.editor),
      payload: { name: 'Aberta' },
    });
    const id = created.json().data.id;
    const response = await putPlan(id, PLAN);
    expect(response.statusCode).toBe(422);
    expect(response.json().code).toBe('NOTE_NOT_COMPLETED');
    expect((await noteOf(id)).plan).toBeNull();
  });

  it("keeps the plan before and after in the note's history", async () => {
    const id = await completedNote('Historia');
    await putPlan(id, PLAN);
    await putPlan(id, { ...PLAN, medications: [] });
    const history = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}/history`, headers: as(clinic.viewer) })).json().data;
    const replaced = history.filter((event: { event: string }) => event.event === 'plan_replaced');
    expect(replaced).toHaveLength(2);
    expect(replaced[0].details.before.medications).toEqual([]);
    expect(replaced[0].details.after.medications).toHaveLength(3);
    expect(replaced[1].details.before.medications).toHaveLength(3);
    expect(replaced[1].details.after.medications).toEqual([]);
    expect(replaced[1].key_id).toBe(clinic.editorId);
  });
});

describe('the plan wherever the note goes', () => {
  it('is in the TXT and RTF exports as a receituário', async () => {
    const id = await completedNote('Receita', '2026-12-07');
    expect((await putPlan(id, PLAN)).statusCode).toBe(200);
    const txt = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}/export?format=txt`, headers: as(clinic.viewer) })).body;
    expect(txt).toContain('Data: 2026-12-07');
    expect(txt).toContain(
      [
        'Prescrição',
        '----------',
        '1. Meloxicam — 0,1 mg/kg, via oral, a cada 24 horas (1x ao dia), por 5 dias',
        '2. Amoxicilina com clavulanato — 0,5 comprimido, via oral, a cada 12 horas (2x ao dia), por 10 dias',
        '3. Dipirona — 25 mg/kg, via subcutânea [APLICADO NA CONSULTA]',
        '',
        'Exames solicitados',
        '------------------',
        '- Hemograma',
        '- Ultrassonografia',
        '',
        'Vacinas',
        '-------',
        '- Antirrábica — aplicada',
        '',
        'Retorno',
        '-------',
        '- 22/12/2026 (em 15 dias) — Reavaliação: retorno em 15 dias',
        '- sem data — Retorno: se piorar, volta antes',
      ].join('\n'),
    );
    const rtf = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}/export?format=rtf`, headers: as(clinic.viewer) })).body;
    expect(rtf).toContain('Prescri\\u231c\\u227ao\\par}');
    expect(rtf).toContain('1. Meloxicam \\u8212? 0,1 mg/kg, via oral, a cada 24 horas (1x ao dia), por 5 dias\\par');
    expect(rtf).toContain('Exames solicitados\\par}');
    expect(rtf).toContain('- Antirr\\u225abica \\u8212? aplicada\\par}');
    expect(rtf).toContain('- 22/12/2026 (em 15 dias) \\u8212? Reavalia\\u231c\\u227ao: retorno em 15 dias\\par');
  });

  it('prints no receituário block for an empty plan', async () => {
    const id = await completedNote('Vazia');
    const txt = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}/export`, headers: as(clinic.viewer) })).body;
    for (const title of ['Prescrição', 'Exames solicitados', 'Vacinas', 'Retorno\n']) expect(txt).not.toContain(title);
  });

  it('travels in note.completed (empty lists) and note.signed (as replaced) webhooks', async () => {
    const receiver = await startReceiver();
    await registerWebhook(app, clinic.admin, receiver.url, ['note.completed', 'note.signed']);
    const id = await completedNote('Webhook');
    expect((await putPlan(id, PLAN)).statusCode).toBe(200);
    await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/${id}/sign`,
      headers: as(clinic.editor),
      payload: { signed_by: ANA, acknowledge_flags: true },
    });
    const bodies = await eventually(async () => {
      const mine = receiver.received.map((entry) => JSON.parse(entry.body)).filter((body) => body.data.note_id === id);
      return mine.length >= 2 ? mine : undefined;
    }, 20_000);
    const completed = bodies.find((body) => body.type === 'note.completed');
    const signed = bodies.find((body) => body.type === 'note.signed');
    expect(completed.data.plan).toEqual({ medications: [], exams: [], vaccines: [], follow_ups: [] });
    expect(completed.data.visit_date).toBe('2026-12-07');
    expect(signed.data.plan).toEqual((await noteOf(id)).plan);
    expect(signed.data.plan.medications).toHaveLength(3);
  });
});
