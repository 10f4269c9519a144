// What a medication's words say besides its name: the dose (a number and its unit, as said, never
// converted), the route, the duration; the interval is read by language/intervals.ts. Each reader
// looks at a bounded number of words past where it starts.

import { readAmount } from '../../language/spoken-numbers.ts';
import type { DoseUnit, Route } from '../store/plan.schemas.ts';
import { PhraseTable, startsWith } from './tokens.ts';

export interface Dose {
  value: number;
  unit: DoseUnit;
  first: number;
  end: number;
}

type Mass = 'mg' | 'mcg' | 'ml' | 'UI' | 'g';

// biome-ignore format: a table reads better packed
const MASS: Record<string, Mass> = {
  mg: 'mg', mgs: 'mg', miligrama: 'mg', miligramas: 'mg',
  mcg: 'mcg', µg: 'mcg', ug: 'mcg', micrograma: 'mcg', microgramas: 'mcg',
  ml: 'ml', mls: 'ml', mililitro: 'ml', mililitros: 'ml', cc: 'ml',
  ui: 'UI', unidade: 'UI', unidades: 'UI',
  g: 'g', grama: 'g', gramas: 'g', gr: 'g',
};
const PER_KG: Partial<Record<Mass, DoseUnit>> = { mg: 'mg/kg', mcg: 'mcg/kg', ml: 'ml/kg', UI: 'UI/kg' };
// biome-ignore format: a table reads better packed
const COUNT: Record<string, DoseUnit> = {
  comprimido: 'comprimido', comprimidos: 'comprimido', comp: 'comprimido', comps: 'comprimido', cp: 'comprimido',
  cps: 'comprimido', tablete: 'comprimido', tabletes: 'comprimido',
  dragea: 'comprimido', drageas: 'comprimido',
  gota: 'gota', gotas: 'gota', gt: 'gota', gts: 'gota', gotinha: 'gota', gotinhas: 'gota',
  aplicacao: 'aplicação', aplicacoes: 'aplicação', borrifada: 'aplicação', borrifadas: 'aplicação', jato: 'aplicação',
  jatos: 'aplicação', puff: 'aplicação', puffs: 'aplicação',
  pipeta: 'pipeta', pipetas: 'pipeta',
};
// biome-ignore format: a table reads better packed
const KILO = new Set(['kg', 'quilo', 'quilos', 'kilo', 'kilos', 'quilograma', 'quilogramas', 'k']);
/** "mg/ml", "mg/dl", "UI/L", "ml/h": a concentration, a lab value or a rate, not a dose. */
// biome-ignore format: a table reads better packed
const NOT_A_DOSE_PER = new Set(['ml', 'dl', 'l', 'litro', 'decilitro', 'mililitro', 'h', 'hora', 'min', 'minuto', 'comprimido', 'g']);

/** "/kg", "por kg", "por quilo (de peso vivo)", "kg": the end of a per-kg tail, or null. */
function perKgAt(words: readonly string[], at: number): number | null {
  let k = at;
  if (words[k] === '/' || words[k] === 'por') k++;
  if (words[k] === 'cada') return null; // "1 ml por cada 10 kg": a rate per body weight (herdRateAt)
  if (!KILO.has(words[k] ?? '')) return null;
  if (k === at && words[k] === 'k') return null;
  k++;
  if (words[k] === 'de' && words[k + 1] === 'peso') {
    k += 2;
    if (words[k] === 'vivo' || words[k] === 'corporal') k++;
  }
  return k;
}

const LITRE = new Set(['litro', 'litros', 'l']);

/**
 * "para cada 50 kg", "a cada 10 kg", "/50 kg", "por 10 kg": a dose per band of weight (a label's or
 * a herd's rate); "por litro (de água)", "/L", "para cada 100 litros": a flock's rate in its water.
 */
export function herdRateAt(words: readonly string[], at: number): number | null {
  const perLitre = litreRateAt(words, at);
  if (perLitre !== null) return perLitre;
  let k = at;
  if (['para', 'a', 'por'].includes(words[k] ?? '')) k++;
  if (words[k] === 'cada') k++;
  else if (words[at] !== '/' && words[at] !== 'por') return null;
  else if (words[at] === '/') k = at + 1;
  const number = readAmount(words as string[], k);
  if (!number || !KILO.has(words[number.end] ?? '')) return null;
  let end = number.end + 1;
  if (words[end] === 'de' && words[end + 1] === 'peso') end += words[end + 2] === 'vivo' ? 3 : 2;
  return end;
}

function litreRateAt(words: readonly string[], at: number): number | null {
  let k = at;
  if (!['para', 'a', 'por', '/'].includes(words[k] ?? '')) return null;
  if (words[k] !== '/' && words[k] !== 'por' && words[k + 1] !== 'cada') return null;
  k += words[k + 1] === 'cada' ? 2 : 1;
  const number = readAmount(words as string[], k);
  if (number) k = number.end;
  if (!LITRE.has(words[k] ?? '')) return null;
  k++;
  if (words[k] === 'de' && words[k + 1] === 'agua') k += 2;
  return k;
}

/** The dose starting at `at` ("0,1 mg/kg", "meio comprimido", "um comprimido e meio", "duas gotas"), or null. */
export function doseAt(words: readonly string[], at: number): (Dose & { herd: boolean }) | null {
  const number = readAmount(words as string[], at);
  if (!number || number.value <= 0) return null;
  let k = number.end;
  if (words[k] === 'de' && (COUNT[words[k + 1] ?? ''] !== undefined || number.value < 1)) k++; // "um quarto de comprimido"
  const word = words[k] ?? '';
  const count = COUNT[word];
  if (count !== undefined) {
    let value = number.value;
    let end = k + 1;
    if (words[end] === 'e' && (words[end + 1] === 'meio' || words[end + 1] === 'meia')) {
      value += 0.5;
      end += 2;
    }
    // The strength of the tablet is not the dose: "um comprimido de 50 mg".
    if (words[end] === 'de' || words[end] === 'com') {
      const strength = readAmount(words as string[], end + 1);
      if (strength && MASS[words[strength.end] ?? ''] !== undefined) end = strength.end + 1;
    }
    const herd = herdRateAt(words, end);
    return { value, unit: count, first: at, end: herd ?? end, herd: herd !== null };
  }
  const mass = MASS[word];
  if (mass === undefined) return null;
  // "gramas" after a weight said in kilos is part of the weight, not a dose.
  if (mass === 'g' && ['e', 'quilos', 'kg'].includes(words[at - 1] ?? '')) return null;
  let end = k + 1;
  const perKg = perKgAt(words, end);
  if (perKg !== null) {
    const unit = PER_KG[mass];
    if (!unit) return null;
    return { value: number.value, unit, first: at, end: perKg, herd: false };
  }
  const perLitre = litreRateAt(words, end);
  if (perLitre !== null) return { value: number.value, unit: mass === 'mcg' ? 'mg' : mass, first: at, end: perLitre, herd: true };
  if ((words[end] === '/' || (words[end] === 'por' && words[end + 1] !== 'cada')) && NOT_A_DOSE_PER.has(words[end + 1] ?? '')) return null;
  const herd = herdRateAt(words, end);
  if (herd !== null) end = herd;
  // Micrograms not per kilo have no unit in the plan (DOSE_UNITS): the dose is not read.
  if (mass === 'mcg') return null;
  return { value: number.value, unit: mass, first: at, end, herd: herd !== null };
}

/** Words of a route as said; "v o" is "v.o." read without its points. */
// biome-ignore format: a table reads better packed
const ROUTE_PHRASES: [string, Route][] = [
  ...(['vo', 'v o', 'via oral', 'por via oral', 'oral', 'pela boca', 'por boca', 'na boca', 'na comida', 'na racao', 'junto com a comida', 'junto com a racao', 'com a comida', 'com comida', 'no petisco', 'na agua', 'na agua de bebida', 'via agua de bebida', 'via agua', 'no bebedouro', 'oralmente', 'misturado na comida', 'misturado na racao', 'no alimento'].map(
    (phrase) => [phrase, 'oral'] as [string, Route],
  )),
  ...(['sc', 's c', 'sq', 'subcutaneo', 'subcutanea', 'subcutaneamente', 'sub cutaneo', 'sub cutanea', 'via subcutanea', 'via sc', 'no subcutaneo', 'debaixo da pele', 'embaixo da pele', 'sob a pele'].map(
    (phrase) => [phrase, 'subcutaneous'] as [string, Route],
  )),
  ...(['im', 'i m', 'intramuscular', 'via intramuscular', 'intramuscularmente', 'no musculo', 'via im'].map((phrase) => [phrase, 'intramuscular'] as [string, Route])),
  ...(['iv', 'i v', 'ev', 'e v', 'intravenoso', 'intravenosa', 'endovenoso', 'endovenosa', 'via intravenosa', 'via endovenosa', 'na veia', 'intravenosamente', 'endovenosamente', 'via iv', 'via ev', 'na jugular', 'na veia jugular', 'na cefalica', 'na veia cefalica'].map(
    (phrase) => [phrase, 'intravenous'] as [string, Route],
  )),
  ...(['topico', 'topica', 'topicamente', 'uso topico', 'via topica', 'na pele', 'na lesao', 'nas lesoes', 'na ferida', 'no local', 'sobre a lesao', 'nas feridas', 'spot on', 'pour on', 'na nuca', 'no dorso', 'no ferimento', 'nos ferimentos', 'no casco', 'nos cascos', 'na pata', 'nas patas', 'no corte', 'na cernelha', 'no lombo', 'no umbigo', 'no focinho'].map(
    (phrase) => [phrase, 'topical'] as [string, Route],
  )),
  ...(['otologico', 'otologica', 'otico', 'otica', 'auricular', 'no ouvido', 'nos ouvidos', 'em cada ouvido', 'na orelha', 'nas orelhas', 'em cada orelha', 'no conduto', 'nos condutos', 'no canal auditivo', 'ouvido', 'ouvidos', 'conduto auditivo'].map(
    (phrase) => [phrase, 'otic'] as [string, Route],
  )),
  ...(['oftalmico', 'oftalmica', 'ocular', 'no olho', 'nos olhos', 'em cada olho', 'nos dois olhos', 'no olho direito', 'no olho esquerdo', 'olho', 'olhos'].map(
    (phrase) => [phrase, 'ophthalmic'] as [string, Route],
  )),
  ...(['transdermico', 'transdermica', 'transdermal', 'via transdermica'].map((phrase) => [phrase, 'transdermal'] as [string, Route])),
  ...(['inalatorio', 'inalatoria', 'inalacao', 'inalado', 'nebulizacao', 'nebulizar', 'bombinha', 'espacador', 'via inalatoria', 'pela mascara', 'na mascara'].map(
    (phrase) => [phrase, 'inhaled'] as [string, Route],
  )),
  ...(['retal', 'via retal', 'supositorio', 'no reto', 'enema'].map((phrase) => [phrase, 'rectal'] as [string, Route])),
];
// biome-ignore format: a table reads better packed
export const ROUTES_SAID = new PhraseTable<Route>(ROUTE_PHRASES);

/** The form a drug is given in, which implies the route when none is said. */
// biome-ignore format: a table reads better packed
export const FORMS = new PhraseTable<Route>([
  ...(['comprimido', 'comprimidos', 'capsula', 'capsulas', 'xarope', 'suspensao oral', 'solucao oral', 'mastigavel', 'tablete', 'drageas', 'petisco', 'pasta', 'pasta oral', 'em pasta', 'granulado', 'gotas orais'].map(
    (phrase) => [phrase, 'oral'] as [string, Route],
  )),
  ...(['colirio', 'colirios', 'pomada oftalmica', 'gel oftalmico'].map((phrase) => [phrase, 'ophthalmic'] as [string, Route])),
  ...(['solucao otologica', 'pomada otologica', 'gotas otologicas', 'otologico'].map((phrase) => [phrase, 'otic'] as [string, Route])),
  ...(['pomada', 'creme', 'shampoo', 'xampu', 'spray', 'locao', 'pipeta', 'pipetas', 'talco', 'sabonete', 'mousse', 'unguento', 'banho com', 'banhos com'].map(
    (phrase) => [phrase, 'topical'] as [string, Route],
  )),
  ...(['supositorio'].map((phrase) => [phrase, 'rectal'] as [string, Route])),
]);

export const ROUTE_OF_UNIT: Partial<Record<DoseUnit, Route>> = { comprimido: 'oral', pipeta: 'topical' };

/** Days in one of each duration unit. */
// biome-ignore format: a table reads better packed
const DAYS: Record<string, number> = {
  dia: 1, dias: 1, d: 1, semana: 7, semanas: 7, quinzena: 15, quinzenas: 15, mes: 30, meses: 30, ano: 365, anos: 365,
};

export interface Duration {
  /** null: "uso contínuo", "até segunda ordem": said, and no number of days. */
  days: number | null;
  first: number;
  end: number;
}

const ONGOING: string[][] = [
  ['uso', 'continuo'],
  ['de', 'uso', 'continuo'],
  ['continuo'],
  ['continuamente'],
  ['por', 'tempo', 'indeterminado'],
  ['tempo', 'indeterminado'],
  ['pra', 'sempre'],
  ['para', 'sempre'],
  ['pelo', 'resto', 'da', 'vida'],
  ['para', 'o', 'resto', 'da', 'vida'],
  ['pro', 'resto', 'da', 'vida'],
  ['ate', 'segunda', 'ordem'],
  ['ate', 'novas', 'orientacoes'],
];
/** Before "N dias", these make it a time (ago, from now, at the age of), not how long to treat. */
// biome-ignore format: a table reads better packed
const NOT_A_DURATION_BEFORE = new Set(['dura', 'durando', 'duram', 'segura', 'protege', 'cobre', 'age', 'efeito', 'em', 'daqui', 'ha', 'faz', 'com', 'apos', 'depois', 'cada', 'de', 'dentro', 'ate', 'tem', 'uns', 'ultimos', 'proximos', 'esses', 'estes', 'nos', 'nesses', 'nestes', 'os', 'primeiros', 'retorno', 'volta', 'a']);

/** "repetir em 15 dias", "repete daqui a um mês": the next dose, so the interval between doses. */
export function repeatAt(words: readonly string[], at: number): { hours: number; first: number; end: number } | null {
  if (!['repetir', 'repete', 'repita', 'repetimos', 'reaplicar', 'reaplica', 'reaplique', 'nova', 'outra'].includes(words[at] ?? ''))
    return null;
  let k = at + 1;
  if (['dose', 'aplicacao'].includes(words[k] ?? '')) k++;
  if (!['em', 'apos', 'daqui', 'com', 'depois'].includes(words[k] ?? '')) return null;
  k++;
  if (['a', 'de'].includes(words[k] ?? '')) k++;
  const number = readAmount(words as string[], k);
  const days = number ? DAYS[words[number.end] ?? ''] : undefined;
  if (!number || days === undefined || words[number.end] === 'd') return null;
  return { hours: number.value * days * 24, first: at, end: number.end + 1 };
}

/** Between "por"/"durante" and the number: "por mais três dias", "por até 5 dias", "durante as duas semanas". */
const DURATION_FILLERS = new Set(['mais', 'uns', 'umas', 'cerca', 'de', 'as', 'os', 'esses', 'essas', 'ate', 'no', 'minimo', 'maximo']);

/** "por dez dias", "durante duas semanas", "por um mês", "dez dias" (alone), "uso contínuo". */
export function durationAt(words: readonly string[], at: number): Duration | null {
  for (const phrase of ONGOING) if (startsWith(words, at, phrase)) return { days: null, first: at, end: at + phrase.length };
  let k = at;
  const lead = words[k];
  const led = lead === 'por' || lead === 'durante' || (lead === 'pelos' && words[k + 1] === 'proximos');
  if (led) {
    k += lead === 'pelos' ? 2 : 1;
    for (let skip = 0; skip < 2 && DURATION_FILLERS.has(words[k] ?? ''); skip++) k++;
  } else if (
    NOT_A_DURATION_BEFORE.has(words[at - 1] ?? '') &&
    !(words[at - 1] === 'de' && ['tratamento', 'uso', 'curso'].includes(words[at - 2] ?? ''))
  )
    return null;
  const number = readAmount(words as string[], k);
  if (!number || number.value <= 0) {
    // "por um mês" reads "um"; "por uma semana"; "durante a semana" is not a duration.
    return null;
  }
  const unit = DAYS[words[number.end] ?? ''];
  if (unit === undefined) return null;
  let end = number.end + 1;
  // "dez dias de tratamento"
  if (words[end] === 'de' && (words[end + 1] === 'tratamento' || words[end + 1] === 'uso')) end += 2;
  // "há dez dias", "dez dias atrás", "dez dias depois": not how long to treat.
  if (['atras', 'depois', 'antes', 'apos', 'seguidos'].includes(words[end] ?? '') && !led) return null;
  return { days: Math.round(number.value * unit), first: at, end };
}
