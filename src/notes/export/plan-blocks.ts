// The plan in an export, as a receituário: blocks "Prescrição", "Exames solicitados", "Vacinas" and
// "Retorno", each a list of pt-BR lines shared by TXT and RTF, after the sections. A medication
// reads as a prescription does: drug, dose, route, frequency, duration ("1. Meloxicam — 0,1 mg/kg
// (total 3,24 mg), via oral, a cada 24 horas (1x ao dia), por 5 dias"); what was not said is left
// out rather than guessed. A drug given in the clinic or stopped in this visit says so in capitals
// between brackets, which survives plain text and black-and-white printing.

import type { Plan, PlanExam, PlanFollowUp, PlanMedication, PlanVaccine } from '../store/plan.schemas.ts';

export const PLAN_TITLES = {
  medications: 'Prescrição',
  exams: 'Exames solicitados',
  vaccines: 'Vacinas',
  follow_ups: 'Retorno',
} as const;

const ROUTES: Record<NonNullable<PlanMedication['route']>, string> = {
  oral: 'via oral',
  subcutaneous: 'via subcutânea',
  intramuscular: 'via intramuscular',
  intravenous: 'via intravenosa',
  topical: 'uso tópico',
  otic: 'uso otológico',
  ophthalmic: 'uso oftálmico',
  transdermal: 'via transdérmica',
  inhaled: 'via inalatória',
  rectal: 'via retal',
};
const STATUS_MARKS: Record<PlanMedication['status'], string> = {
  prescribed: '',
  administered: ' [APLICADO NA CONSULTA]',
  suspended: ' [SUSPENSO]',
};
const PLURAL_UNITS: Record<string, string> = { comprimido: 'comprimidos', gota: 'gotas', aplicação: 'aplicações', pipeta: 'pipetas' };
const EXAMS: Record<PlanExam['code'], string> = {
  cbc: 'Hemograma',
  biochemistry: 'Bioquímico',
  urinalysis: 'Urinálise',
  fecal: 'Parasitológico de fezes',
  ultrasound: 'Ultrassonografia',
  radiograph: 'Radiografia',
  cytology: 'Citologia',
  culture: 'Cultura e antibiograma',
  ecg: 'Eletrocardiograma',
  echocardiogram: 'Ecocardiograma',
  blood_pressure: 'Pressão arterial',
  rapid_test: 'Teste rápido',
  pcr: 'PCR',
  histopathology: 'Histopatológico (biópsia)',
  other: 'Outro',
};
const VACCINES: Record<PlanVaccine['code'], string> = {
  v8_v10: 'Polivalente canina (V8/V10)',
  rabies: 'Antirrábica',
  feline_polyvalent: 'Polivalente felina',
  kennel_cough: 'Tosse dos canis',
  giardia: 'Giárdia',
  leishmaniasis: 'Leishmaniose',
  felv: 'FeLV',
  equine_influenza: 'Influenza equina',
  tetanus: 'Tétano',
  other: 'Outra',
};
const FOLLOW_UPS: Record<PlanFollowUp['kind'], string> = {
  recheck: 'Reavaliação',
  vaccine_booster: 'Reforço de vacina',
  exam_result: 'Trazer resultado de exames',
  procedure: 'Procedimento',
  other: 'Retorno',
};

/** 0.1 → "0,1": Brazilian decimal comma. */
const number = (value: number) => String(value).replace('.', ',');
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
/** `2026-12-22` → `22/12/2026`. */
const brazilianDate = (day: string) => day.split('-').reverse().join('/');

function doseOf(item: PlanMedication): string | null {
  if (item.dose_value === null) return null;
  const unit = item.dose_unit === null ? '' : ` ${item.dose_value > 1 ? (PLURAL_UNITS[item.dose_unit] ?? item.dose_unit) : item.dose_unit}`;
  const total = item.computed_total ? ` (total ${number(item.computed_total.value)} ${item.computed_total.unit})` : '';
  return `${number(item.dose_value)}${unit}${total}`;
}

function frequencyOf(hours: number | null): string | null {
  if (hours === null) return null;
  const perDay = 24 / hours;
  return Number.isInteger(perDay) && perDay >= 1 ? `a cada ${number(hours)} horas (${perDay}x ao dia)` : `a cada ${number(hours)} horas`;
}

const durationOf = (days: number | null) => (days === null ? null : `por ${number(days)} ${days === 1 ? 'dia' : 'dias'}`);

/** One receituário line: drug, dose, route, frequency, duration; the words as said when nothing else could be written. */
export function medicationLine(item: PlanMedication, index: number): string {
  const parts = [doseOf(item), item.route && ROUTES[item.route], frequencyOf(item.interval_hours), durationOf(item.duration_days)];
  const said = parts.filter((part): part is string => part !== null);
  return `${index + 1}. ${capitalised(item.drug)}${said.length > 0 ? ` — ${said.join(', ')}` : ''}${STATUS_MARKS[item.status]}`;
}

const examLine = (item: PlanExam) => `- ${item.code === 'other' ? item.text : EXAMS[item.code]}`;
const vaccineLine = (item: PlanVaccine) =>
  `- ${item.code === 'other' ? item.text : VACCINES[item.code]} — ${item.status === 'administered' ? 'aplicada' : 'agendada'}`;

function followUpLine(item: PlanFollowUp): string {
  const when =
    item.due_date === null
      ? 'sem data'
      : `${brazilianDate(item.due_date)}${item.due_in_days === null ? '' : ` (em ${item.due_in_days} ${item.due_in_days === 1 ? 'dia' : 'dias'})`}`;
  return `- ${when} — ${FOLLOW_UPS[item.kind]}: ${item.text}`;
}

/** The plan's blocks that hold something, in receituário order; none without a plan. */
export function planBlocks(plan: Plan | null | undefined): { title: string; lines: string[] }[] {
  if (!plan) return [];
  const blocks = [
    { title: PLAN_TITLES.medications, lines: plan.medications.map(medicationLine) },
    { title: PLAN_TITLES.exams, lines: plan.exams.map(examLine) },
    { title: PLAN_TITLES.vaccines, lines: plan.vaccines.map(vaccineLine) },
    { title: PLAN_TITLES.follow_ups, lines: plan.follow_ups.map(followUpLine) },
  ];
  return blocks.filter((block) => block.lines.length > 0);
}
