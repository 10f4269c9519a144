import type { DoseUnit, ExamCode, PlanMedication, PlanVaccine, Route } from '../store/plan.schemas.ts';

// The plan's codes in the words a tutor uses (pt-BR). Pure functions: the summary is built from
// them, and the same plan always reads the same.

const ROUTE_WORDS: Record<Route, string> = {
  oral: 'pela boca',
  otic: 'no ouvido',
  ophthalmic: 'no olho',
  topical: 'na pele',
  transdermal: 'na pele',
  subcutaneous: 'em injeção',
  intramuscular: 'em injeção',
  intravenous: 'em injeção',
  inhaled: 'por inalação',
  rectal: 'pelo ânus',
};

/** Units said of a countable thing take the plural; measures (mg, ml) do not. */
const PLURALS: Partial<Record<DoseUnit, string>> = {
  comprimido: 'comprimidos',
  gota: 'gotas',
  aplicação: 'aplicações',
  pipeta: 'pipetas',
};

export const EXAM_WORDS: Record<ExamCode, string> = {
  cbc: 'hemograma',
  biochemistry: 'exames bioquímicos',
  urinalysis: 'exame de urina',
  fecal: 'exame de fezes',
  ultrasound: 'ultrassom',
  radiograph: 'raio-X',
  cytology: 'citologia',
  culture: 'cultura e antibiograma',
  ecg: 'eletrocardiograma',
  echocardiogram: 'ecocardiograma',
  blood_pressure: 'medida da pressão',
  rapid_test: 'teste rápido',
  pcr: 'PCR',
  histopathology: 'biópsia',
  other: 'outro exame',
};

const VACCINE_WORDS: Record<PlanVaccine['code'], string> = {
  v8_v10: 'polivalente (V8/V10)',
  rabies: 'antirrábica',
  feline_polyvalent: 'polivalente felina',
  kennel_cough: 'tosse dos canis',
  giardia: 'giárdia',
  leishmaniasis: 'leishmaniose',
  felv: 'FeLV',
  equine_influenza: 'influenza equina',
  tetanus: 'antitetânica',
  other: 'vacina',
};

/** A number as pt-BR writes it: 0,5 — never 0.5. */
export function decimal(value: number): string {
  return String(Math.round(value * 1000) / 1000).replace('.', ',');
}

/** `YYYY-MM-DD` → `DD/MM/YYYY`. */
export function brDate(isoDate: string): string {
  const [year, month, day] = isoDate.split('-');
  return `${day}/${month}/${year}`;
}

/** The vaccine's name; the V8 or V10 the note said rather than both. */
export function vaccineName(vaccine: Pick<PlanVaccine, 'code' | 'text'>): string {
  if (vaccine.code === 'v8_v10') {
    const said = /\bv\s?-?(8|10)\b/i.exec(vaccine.text);
    if (said) return `V${said[1]}`;
  }
  return VACCINE_WORDS[vaccine.code];
}

/** "Meloxicam", "Amoxicilina com clavulanato": the drug as said, its first letter raised. */
export function drugName(drug: string): string {
  return drug.charAt(0).toLocaleUpperCase('pt-BR') + drug.slice(1);
}

/** The side the item's words name (olho esquerdo, ouvido direito, ambos), when they name one. */
function sideOf(text: string): string | null {
  const both = /\b(ambos|nos dois|os dois)\b/i.test(text);
  if (both) return 'nos dois lados';
  const side = /\b(direit[oa]|esquerd[oa])\b/i.exec(text);
  return side ? side[1]!.toLowerCase() : null;
}

/**
 * A prescribed medication as a home instruction: "1 comprimido pela boca a cada 24 horas, por 5
 * dias". Only what the plan holds; an instruction with nothing known says to follow the prescription.
 */
export function homeInstruction(medication: PlanMedication): string {
  const parts: string[] = [];
  if (medication.dose_value !== null && medication.dose_unit !== null) {
    const unit = medication.dose_value > 1 ? (PLURALS[medication.dose_unit] ?? medication.dose_unit) : medication.dose_unit;
    parts.push(`${decimal(medication.dose_value)} ${unit}`);
  }
  if (medication.route !== null) {
    const side = medication.route === 'otic' || medication.route === 'ophthalmic' ? sideOf(medication.text) : null;
    parts.push(
      side === 'nos dois lados'
        ? `${ROUTE_WORDS[medication.route]}, ${side}`
        : [ROUTE_WORDS[medication.route], side].filter(Boolean).join(' '),
    );
  }
  if (medication.interval_hours !== null) parts.push(`a cada ${decimal(medication.interval_hours)} horas`);
  const head = parts.join(' ');
  const duration =
    medication.duration_days === null ? '' : `por ${decimal(medication.duration_days)} ${medication.duration_days === 1 ? 'dia' : 'dias'}`;
  const said = [head, duration].filter(Boolean).join(', ');
  return `${drugName(medication.drug)}: ${said || 'conforme a receita'}`;
}

// Words a tutor may not know, explained once in brackets after the diagnosis names them.
const GLOSSARY: [RegExp, string][] = [
  [/\botite\b/i, 'inflamação do ouvido'],
  [/\bgastroenterite\b/i, 'inflamação do estômago e do intestino'],
  [/\bgastrite\b/i, 'inflamação do estômago'],
  [/\bdermatite\b/i, 'inflamação da pele'],
  [/\bconjuntivite\b/i, 'inflamação do olho'],
  [/\bcistite\b/i, 'inflamação da bexiga'],
  [/\bpancreatite\b/i, 'inflamação do pâncreas'],
  [/\bpiodermite\b/i, 'infecção da pele'],
  [/\bdoença renal crônica\b|\bDRC\b/, 'os rins funcionam menos que o normal'],
  [/\bcardiopatia\b/i, 'doença do coração'],
  [/\bartrose\b|\bosteoartrite\b/i, 'desgaste das articulações'],
  [/\bdisplasia\b/i, 'má formação da articulação'],
  [/\bverminose\b/i, 'vermes no intestino'],
  [/\bhipotireoidismo\b/i, 'a tireoide produz pouco hormônio'],
];

/** The diagnosis as the note says it, each term a tutor may not know followed by its meaning. */
export function plainDiagnosis(text: string): string {
  let plain = text;
  for (const [term, meaning] of GLOSSARY) {
    const match = term.exec(plain);
    if (match) plain = `${plain.slice(0, match.index + match[0].length)} (${meaning})${plain.slice(match.index + match[0].length)}`;
  }
  return plain;
}
