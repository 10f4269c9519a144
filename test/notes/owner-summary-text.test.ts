import { describe, expect, it } from 'vitest';
import { factsOf } from '../../src/notes/owner-summary/note-facts.ts';
import { buildSummaryText, SUMMARY_MAX_CHARACTERS, type SummaryFacts } from '../../src/notes/owner-summary/summary-text.ts';
import { EMPTY_PLAN, type Plan, type PlanMedication } from '../../src/notes/store/plan.schemas.ts';
import { PADRAO, SOAP } from '../../src/notes/templates/builtin-templates.ts';

// The deterministic summary ("Orientações ao tutor") over a small corpus of notes: each template,
// with and without a plan, every route in plain words, and plans too long for one message.

const ID = '00000000-0000-4000-8000-000000000001';
const item = { id: ID, evidence: null };

function medication(drug: string, fields: Partial<PlanMedication> = {}): PlanMedication {
  return {
    ...item,
    text: drug,
    drug,
    dose_value: null,
    dose_unit: null,
    route: null,
    interval_hours: null,
    duration_days: null,
    status: 'prescribed',
    computed_total: null,
    ...fields,
  };
}

const THOR_PLAN: Plan = {
  medications: [
    medication('meloxicam', { dose_value: 1, dose_unit: 'comprimido', route: 'oral', interval_hours: 24, duration_days: 5 }),
    medication('otomax', {
      text: 'otomax cinco gotas no ouvido esquerdo',
      dose_value: 5,
      dose_unit: 'gota',
      route: 'otic',
      interval_hours: 12,
      duration_days: 7,
    }),
    medication('dipirona', { status: 'administered' }),
    medication('prednisolona', { status: 'suspended' }),
  ],
  exams: [{ ...item, text: 'hemograma', code: 'cbc' }],
  vaccines: [
    { ...item, text: 'apliquei a V10', code: 'v8_v10', status: 'administered' },
    { ...item, text: 'antirrábica no mês que vem', code: 'rabies', status: 'prescribed' },
  ],
  follow_ups: [
    { ...item, text: 'retorno em 15 dias', kind: 'recheck', due_in_days: 15, due_date: '2026-12-22' },
    { ...item, text: 'antirrábica em 30 dias', kind: 'vaccine_booster', due_in_days: 30, due_date: '2027-01-06' },
  ],
};

const base: SummaryFacts = {
  tutorName: 'Lia Souza',
  patientName: 'Thor',
  visitDate: '2026-12-07',
  diagnosis: 'Otite externa no ouvido esquerdo.',
  plan: THOR_PLAN,
  warnings: ['Se apresentar vômito ou parar de comer, voltar imediatamente.'],
  clinicName: 'Clínica Boa Vista',
};

const section = (label: string, content: string) => ({ label, content }) as Parameters<typeof factsOf>[1][number];

describe('the deterministic owner summary', () => {
  it('says everything of a full plan in plain words, greeting the tutor by first name', () => {
    const text = buildSummaryText(base);
    expect(text).toBe(
      [
        'Olá, Lia! Orientações ao tutor da consulta de Thor em 07/12/2026.',
        'O que encontramos: Otite (inflamação do ouvido) externa no ouvido esquerdo.',
        [
          'Medicamentos em casa:',
          '- Meloxicam: 1 comprimido pela boca a cada 24 horas, por 5 dias',
          '- Otomax: 5 gotas no ouvido esquerdo a cada 12 horas, por 7 dias',
          'Aplicado na clínica hoje: Dipirona.',
          'Suspender: Prednisolona.',
        ].join('\n'),
        'Exames: hemograma. Aguarde o resultado ou traga-o no retorno.',
        'Vacinas aplicadas hoje: V10. Próxima dose: antirrábica em 06/01/2027.',
        'Retorno: 22/12/2026.',
        'Procure a clínica antes do retorno: Se apresentar vômito ou parar de comer, voltar imediatamente.',
        'Clínica Boa Vista. Dúvidas? Responda esta mensagem.',
      ].join('\n\n'),
    );
  });

  it.each([
    ['oral', 'pela boca'],
    ['otic', 'no ouvido'],
    ['ophthalmic', 'no olho'],
    ['topical', 'na pele'],
    ['subcutaneous', 'em injeção'],
    ['intramuscular', 'em injeção'],
  ] as const)('writes the %s route as "%s"', (route, words) => {
    const text = buildSummaryText({ ...base, plan: { ...EMPTY_PLAN, medications: [medication('remédio', { route })] } });
    expect(text).toContain(`- Remédio: ${words}\n`);
  });

  it('says a medication with nothing known is taken as prescribed, and writes decimals the Brazilian way', () => {
    const text = buildSummaryText({
      ...base,
      plan: { ...EMPTY_PLAN, medications: [medication('vitamina'), medication('tramadol', { dose_value: 0.5, dose_unit: 'comprimido' })] },
    });
    expect(text).toContain('- Vitamina: conforme a receita');
    expect(text).toContain('- Tramadol: 0,5 comprimido');
  });

  it('without a plan, a tutor or a visit date still greets, names the patient and the clinic', () => {
    const text = buildSummaryText({ ...base, tutorName: null, visitDate: null, plan: EMPTY_PLAN, warnings: [], diagnosis: null });
    expect(text).toBe('Olá! Orientações ao tutor da consulta de Thor.\n\nClínica Boa Vista. Dúvidas? Responda esta mensagem.');
  });

  it('reads the diagnosis from the padrao and the SOAP templates, and warning signs only where the note says them', () => {
    const note = { name: 'Mel', visitDate: '2026-12-07', plan: null, tutor: { name: 'Rui' } };
    const padrao = factsOf(
      { ...note, template: PADRAO },
      [section('diagnosis', 'Gastrite aguda.'), section('treatment', 'Dieta leve.')],
      'C',
    );
    expect(padrao).toMatchObject({ diagnosis: 'Gastrite aguda.', warnings: [] });
    const soap = factsOf(
      { ...note, template: SOAP },
      [section('avaliacao', 'Gastrite aguda.'), section('plano', 'Dieta leve. Se vomitar de novo, trazer imediatamente.')],
      'C',
    );
    expect(soap).toMatchObject({ diagnosis: 'Gastrite aguda.', warnings: ['Se vomitar de novo, trazer imediatamente.'] });
    expect(buildSummaryText(soap)).toContain('O que encontramos: Gastrite (inflamação do estômago) aguda.');
  });

  it('cuts a long plan keeping every instruction and the return date, and says the rest is in the record', () => {
    const medications = Array.from({ length: 9 }, (_, i) =>
      medication(`medicamento numero ${i + 1}`, {
        dose_value: 2,
        dose_unit: 'comprimido',
        route: 'oral',
        interval_hours: 12,
        duration_days: 10,
      }),
    );
    const text = buildSummaryText({ ...base, diagnosis: 'Muito longo. '.repeat(40), plan: { ...THOR_PLAN, medications } });
    expect(text.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARACTERS);
    for (let i = 1; i <= 9; i++) expect(text).toContain(`- Medicamento numero ${i}: 2 comprimidos pela boca a cada 12 horas, por 10 dias`);
    expect(text).toContain('Retorno: 22/12/2026.');
    expect(text).toContain('O restante das orientações está no prontuário da clínica.');
    expect(text).not.toContain('O que encontramos');
    expect(text.endsWith('Dúvidas? Responda esta mensagem.')).toBe(true);
  });

  it('names by count the medications that cannot fit, never cutting the return', () => {
    const medications = Array.from({ length: 40 }, (_, i) =>
      medication(`medicamento ${i + 1}`, { dose_value: 1, dose_unit: 'comprimido', route: 'oral', interval_hours: 8, duration_days: 14 }),
    );
    const text = buildSummaryText({ ...base, plan: { ...THOR_PLAN, medications } });
    expect(text.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARACTERS);
    const kept = text.split('\n').filter((line) => line.startsWith('- Medicamento ')).length;
    const more = Number(/- e mais (\d+) medicamentos na receita/.exec(text)?.[1]);
    expect(kept).toBeGreaterThan(1);
    expect(kept + more).toBe(40);
    // The count comes right after the instructions kept, before the return.
    expect(text.indexOf('- e mais')).toBeLessThan(text.indexOf('Retorno: 22/12/2026.'));
    expect(text).toContain('Retorno: 22/12/2026.');
    expect(text).toContain('O restante das orientações está no prontuário da clínica.');
  });

  it('is never longer than a WhatsApp utility message, whatever the note', () => {
    for (const size of [0, 1, 5, 20, 100]) {
      const medications = Array.from({ length: size }, (_, i) =>
        medication(`droga ${'x'.repeat(i % 90)}`, { dose_value: 1, dose_unit: 'mg' }),
      );
      const text = buildSummaryText({
        ...base,
        patientName: 'P'.repeat(100),
        clinicName: 'C'.repeat(200),
        plan: { ...THOR_PLAN, medications },
      });
      expect(text.length, `${size} medications`).toBeLessThanOrEqual(SUMMARY_MAX_CHARACTERS);
    }
  });
});

describe('the diagnosis of a note', () => {
  it('leaves out sentences of the treatment or the return the sectioner put there', () => {
    const plan = { ...EMPTY_PLAN, medications: [medication('meloxicam')] };
    const facts = factsOf(
      { name: 'Thor', visitDate: null, plan, tutor: null, template: PADRAO },
      [section('diagnosis', 'Otite externa no ouvido esquerdo. Vou prescrever meloxicam por cinco dias. Retorno em 15 dias.')],
      'C',
    );
    expect(facts.diagnosis).toBe('Otite externa no ouvido esquerdo.');
  });
});
