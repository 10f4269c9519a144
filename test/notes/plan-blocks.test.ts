import { describe, expect, it } from 'vitest';
import { medicationLine, planBlocks } from '../../src/notes/export/plan-blocks.ts';
import type { PlanMedication } from '../../src/notes/store/plan.schemas.ts';

// The receituário's lines (TXT and RTF share them): what was said, in the order a prescription
// reads, nothing guessed.

const medication = (change: Partial<PlanMedication>): PlanMedication => ({
  id: '00000000-0000-4000-8000-000000000001',
  text: 'palavras',
  evidence: null,
  drug: 'carprofeno',
  dose_value: null,
  dose_unit: null,
  route: null,
  interval_hours: null,
  duration_days: null,
  status: 'prescribed',
  computed_total: null,
  ...change,
});

describe('medicationLine', () => {
  it.each([
    [{}, '1. Carprofeno'],
    [{ dose_value: 2.2, dose_unit: 'mg/kg', computed_total: { value: 70.4, unit: 'mg' } }, '1. Carprofeno — 2,2 mg/kg (total 70,4 mg)'],
    [{ dose_value: 2, dose_unit: 'comprimido', route: 'oral' }, '1. Carprofeno — 2 comprimidos, via oral'],
    [
      { dose_value: 3, dose_unit: 'gota', route: 'otic', interval_hours: 8 },
      '1. Carprofeno — 3 gotas, uso otológico, a cada 8 horas (3x ao dia)',
    ],
    [
      { dose_value: 1, dose_unit: 'pipeta', route: 'topical', interval_hours: 720 },
      '1. Carprofeno — 1 pipeta, uso tópico, a cada 720 horas',
    ],
    [{ interval_hours: 36, duration_days: 1 }, '1. Carprofeno — a cada 36 horas, por 1 dia'],
    [
      { dose_value: 0.5, dose_unit: 'ml', route: 'intravenous', status: 'administered' },
      '1. Carprofeno — 0,5 ml, via intravenosa [APLICADO NA CONSULTA]',
    ],
    [{ status: 'suspended' }, '1. Carprofeno [SUSPENSO]'],
  ] as [Partial<PlanMedication>, string][])('%j → %s', (change, line) => {
    expect(medicationLine(medication(change), 0)).toBe(line);
  });
});

describe('planBlocks', () => {
  it('prints only the blocks that hold something, in receituário order; none without a plan', () => {
    expect(planBlocks(null)).toEqual([]);
    expect(planBlocks({ medications: [], exams: [], vaccines: [], follow_ups: [] })).toEqual([]);
    const blocks = planBlocks({
      medications: [],
      exams: [{ id: 'e', text: 'pesquisa de hemoparasitas', evidence: null, code: 'other' }],
      vaccines: [{ id: 'v', text: 'V10 em 21 dias', evidence: null, code: 'v8_v10', status: 'prescribed' }],
      follow_ups: [{ id: 'f', text: 'volta amanhã', evidence: null, kind: 'procedure', due_in_days: 1, due_date: '2027-01-01' }],
    });
    expect(blocks).toEqual([
      { title: 'Exames solicitados', lines: ['- pesquisa de hemoparasitas'] },
      { title: 'Vacinas', lines: ['- Polivalente canina (V8/V10) — agendada'] },
      { title: 'Retorno', lines: ['- 01/01/2027 (em 1 dia) — Procedimento: volta amanhã'] },
    ]);
  });
});
