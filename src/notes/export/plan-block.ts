// The plan of a note as a receituário, in lines shared by the record's TXT and PDF: each medication
// with its drug, dose, route, frequency and duration; the exams ordered, the vaccines and the
// follow-ups. Read from the stored plan (src/notes/store/plan.schemas.ts); an empty plan has no block.

import type { Plan, PlanFollowUp, PlanMedication } from '../store/plan.schemas.ts';

export const PLAN_TITLE = 'Receituário e plano';

const ROUTE_LABELS: Record<NonNullable<PlanMedication['route']>, string> = {
  oral: 'via oral',
  subcutaneous: 'via subcutânea',
  intramuscular: 'via intramuscular',
  intravenous: 'via intravenosa',
  topical: 'uso tópico',
  otic: 'via otológica',
  ophthalmic: 'via oftálmica',
  transdermal: 'via transdérmica',
  inhaled: 'via inalatória',
  rectal: 'via retal',
};
const MEDICATION_STATUS: Record<PlanMedication['status'], string> = {
  prescribed: '',
  administered: ' (aplicado na consulta)',
  suspended: ' (suspenso)',
};
const EXAM_LABELS: Record<Plan['exams'][number]['code'], string> = {
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
  histopathology: 'Histopatológico',
  other: 'Outro exame',
};
const VACCINE_LABELS: Record<Plan['vaccines'][number]['code'], string> = {
  v8_v10: 'Polivalente canina (V8/V10)',
  rabies: 'Antirrábica',
  feline_polyvalent: 'Polivalente felina',
  kennel_cough: 'Tosse dos canis',
  giardia: 'Giardíase',
  leishmaniasis: 'Leishmaniose',
  felv: 'FeLV',
  equine_influenza: 'Influenza equina',
  tetanus: 'Antitetânica',
  other: 'Outra vacina',
};
const FOLLOW_UP_LABELS: Record<PlanFollowUp['kind'], string> = {
  recheck: 'Retorno',
  vaccine_booster: 'Reforço de vacina',
  exam_result: 'Trazer resultado de exame',
  procedure: 'Procedimento',
  other: 'Retorno',
};

/** 2.5 → "2,5": Brazilian decimal comma. */
const number = (value: number) => String(value).replace('.', ',');
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
/** `2026-12-12` → `12/12/2026`. */
const day = (date: string) => date.split('-').reverse().join('/');

/** "Amoxicilina — 20 mg/kg — via oral — a cada 12 h — por 7 dias": only what was said. */
export function medicationLine(medication: PlanMedication): string {
  const dose =
    medication.dose_value !== null ? `${number(medication.dose_value)}${medication.dose_unit ? ` ${medication.dose_unit}` : ''}` : null;
  const total = medication.computed_total ? ` (total ${number(medication.computed_total.value)} ${medication.computed_total.unit})` : '';
  const parts = [
    capitalised(medication.drug),
    dose ? `${dose}${total}` : null,
    medication.route ? ROUTE_LABELS[medication.route] : null,
    medication.interval_hours !== null ? `a cada ${number(medication.interval_hours)} h` : null,
    medication.duration_days !== null ? `por ${number(medication.duration_days)} ${medication.duration_days === 1 ? 'dia' : 'dias'}` : null,
  ];
  return `${parts.filter((part) => part !== null).join(' — ')}${MEDICATION_STATUS[medication.status]}`;
}

function followUpLine(followUp: PlanFollowUp): string {
  const when =
    followUp.due_in_days !== null
      ? ` em ${followUp.due_in_days} ${followUp.due_in_days === 1 ? 'dia' : 'dias'}${followUp.due_date ? ` (${day(followUp.due_date)})` : ''}`
      : '';
  return `${FOLLOW_UP_LABELS[followUp.kind]}${when}: ${followUp.text}`;
}

/** The receituário as titled groups of lines; [] when the note has no plan or an empty one. */
export function planBlocks(plan: Plan | null | undefined): { title: string; lines: string[] }[] {
  if (!plan) return [];
  const blocks = [
    { title: 'Medicamentos', lines: plan.medications.map((medication, index) => `${index + 1}. ${medicationLine(medication)}`) },
    {
      title: 'Exames',
      lines: plan.exams.map((exam) => `- ${exam.code === 'other' ? exam.text : EXAM_LABELS[exam.code]}`),
    },
    {
      title: 'Vacinas',
      lines: plan.vaccines.map(
        (vaccine) =>
          `- ${vaccine.code === 'other' ? vaccine.text : VACCINE_LABELS[vaccine.code]} (${vaccine.status === 'administered' ? 'aplicada' : 'agendada'})`,
      ),
    },
    { title: 'Retorno', lines: plan.follow_ups.map((followUp) => `- ${followUpLine(followUp)}`) },
  ];
  return blocks.filter((block) => block.lines.length > 0);
}
