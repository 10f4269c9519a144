import { describe, expect, it } from 'vitest';
import { planOfText } from '../../src/notes/plan/extract-plan.ts';

// The plan read from text as a small Whisper writes it: fillers and words said twice between the
// parts of a dose or schedule are read past, as punctuation is.

const context = { visitDate: '2026-12-07', weightKg: 10, clinicDrugNames: [] };

describe('the plan from spoken-style text', () => {
  it.each([
    [
      'doxiciclina vinte e cinco miligramas por né quilo por via oral a cada doze horas por então quarenta e cinco dias',
      25,
      'mg/kg',
      12,
      45,
    ],
    ['meloxicam meloxicam um miligrama por por quilo via oral uma vez tipo ao dia por cinco dias', 1, 'mg/kg', 24, 5],
    ['prednisolona um miligrama então por quilo via oral uma vez ao ao dia por cinco dias', 1, 'mg/kg', 24, 5],
    ['otomax cinco gotas em cada ouvido duas vezes ao ao dia por catorze dias', 5, 'gota', 12, 14],
  ])('%s', (text, dose, unit, interval, duration) => {
    const [medication, ...more] = planOfText(text, context).medications;
    expect(more).toEqual([]);
    expect(medication).toMatchObject({ dose_value: dose, dose_unit: unit, interval_hours: interval, duration_days: duration });
  });

  it('names the drug once, and quotes the words as they were written', () => {
    const [medication] = planOfText('apliquei ivermectina ivermectina zero vírgula quatro miligramas por quilo sc', context).medications;
    expect(medication).toMatchObject({ drug: 'ivermectina', dose_value: 0.4, dose_unit: 'mg/kg', route: 'subcutaneous' });
    expect(medication!.text).toContain('ivermectina');
  });
});

describe('vitals from spoken-style text', () => {
  it('reads past fillers and a number said twice', async () => {
    const { vitalsOfText } = await import('../../src/notes/vitals/note-vitals.ts');
    const read = vitalsOfText(
      'pastor alemão nove anos 38 38 quilos temperatura tipo trinta e sete vírgula seis né frequência cardíaca cento e vinte',
    ).map((vital) => `${vital.code}=${vital.value}`);
    expect(read.sort()).toEqual(['heart_rate=120', 'temperature=37.6', 'weight=38']);
  });
});
