// The "Sinais vitais" block of an export, as lines shared by TXT and RTF: one line per vital in
// pt-BR ("Temperatura: 39,8 °C [ALTO]"), a flagged value marked in capitals between brackets so it
// survives plain text, copy and paste into a clinic system and black-and-white printing.

import type { Species, Vital, VitalFlag } from '../store/vitals.schemas.ts';

export const VITALS_TITLE = 'Sinais vitais';

const LABELS: Record<Vital['code'], string> = {
  temperature: 'Temperatura',
  weight: 'Peso',
  heart_rate: 'Frequência cardíaca',
  respiratory_rate: 'Frequência respiratória',
  capillary_refill_time: 'Tempo de preenchimento capilar',
  body_condition_score: 'Escore de condição corporal',
  dehydration: 'Desidratação',
  mucous_membranes: 'Mucosas',
};
const MUCOSAS: Record<string, string> = {
  normal: 'normocoradas',
  pale: 'hipocoradas',
  hyperemic: 'hiperêmicas',
  icteric: 'ictéricas',
  cyanotic: 'cianóticas',
};
const FLAGS: Record<VitalFlag, string> = { low: '[BAIXO]', high: '[ALTO]', abnormal: '[ALTERADO]' };
const COMPARATORS: Record<string, string> = { '<': '< ', '<=': '≤ ', '>': '> ', '>=': '≥ ' };
export const SPECIES_LABELS: Record<Species, string> = {
  canine: 'Canina',
  feline: 'Felina',
  equine: 'Equina',
  bovine: 'Bovina',
  caprine: 'Caprina',
  ovine: 'Ovina',
  lagomorph: 'Lagomorfa (coelho)',
  avian: 'Ave',
  other: 'Outra',
};

/** 39.8 → "39,8": Brazilian decimal comma. */
const number = (value: number) => String(value).replace('.', ',');

function shownValue(vital: Vital): string {
  if (vital.code === 'mucous_membranes') return MUCOSAS[String(vital.value)] ?? String(vital.value);
  // "3/5", "8%" glued; "39,8 °C", "180 bpm" spaced.
  const unit = vital.unit === '/5' || vital.unit === '/9' || vital.unit === '%' ? vital.unit : ` ${vital.unit}`;
  return `${COMPARATORS[vital.comparator ?? ''] ?? ''}${number(vital.value as number)}${unit}`;
}

export function vitalLines(vitals: Vital[] | undefined): { line: string; flagged: boolean }[] {
  return (vitals ?? []).map((vital) => ({
    line: `- ${LABELS[vital.code]}: ${shownValue(vital)}${vital.flag ? ` ${FLAGS[vital.flag]}` : ''}`,
    flagged: vital.flag !== null,
  }));
}
