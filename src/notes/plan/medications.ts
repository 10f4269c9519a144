// Medications: every drug of the lexicon said in the consultation is a mention; a mention becomes
// an item when the words around it say it is prescribed, given now or stopped, and not when they
// say it was taken before or considered and rejected. Each mention reads
//   - its preamble: the words just before it, back over cues, routes and little words ("vou passar
//     também um comprimido de ...", "nebulização com ..."), stopping at any other word or a
//     sentence mark;
//   - its reach: the words after it up to the next mention's preamble, another topic (a return,
//     an exam, a vaccine) or REACH words, across sentences, so a schedule said later ("Dá de manhã
//     e à noite." … "Por quanto tempo?" … "Dez dias.") attaches to the drug being discussed.
// The first dose, interval, duration and route in its reach are its own. Its status comes from its
// own cues; else from the drug before or after it in the same list ("Apliquei dipirona …,
// cefalotina … e morfina …"); else from the heading it is under ("Prescrição:", "Aplicado agora:").
// A drug said again adds what it was missing to the first item of the same drug and status.

import { hasDrugEnding } from '../../language/drug-endings.ts';
import { type Interval, intervalAt } from '../../language/intervals.ts';
import type { DoseUnit, PlanMedication, Route } from '../store/plan.schemas.ts';
import { CUES, type Cue, GLUE, LONGEST_CUE, PAST_MARKERS, SECTIONS, TOPIC_STOPS } from './cues.ts';
import { type Dose, doseAt, durationAt, FORMS, ROUTE_OF_UNIT, ROUTES_SAID, repeatAt } from './doses.ts';
import type { Drug } from './lexicon/lexicon.ts';
import { FILLERS, type PhraseTable, type Words } from './tokens.ts';

/** How far a drug's reach goes at most (words). */
export const REACH = 60;
/** How far after the drug a cue still speaks of it ("Dexametasona 0,5 mg/kg IV, já apliquei."). */
const CUE_REACH = 14;
/** How far before the drug its preamble goes at most (words). */
const PREAMBLE = 12;
/** Two drugs in one sentence this close are a list: one cue speaks for all. */
const LIST_SPAN = 30;

type Status = PlanMedication['status'];

export interface FoundMedication {
  drug: string;
  generic: string;
  dose_value: number | null;
  dose_unit: DoseUnit | null;
  route: Route | null;
  interval_hours: number | null;
  duration_days: number | null;
  status: Status;
  /** Indices of the words read. */
  used: number[];
}

interface Mention {
  first: number;
  end: number;
  drug: Drug;
  /** The drug as said: the mention's words as transcribed, folded. */
  said: string;
}

/** What a mention's own words say of its status: a status, "not an item", or nothing. */
type Own = { kind: 'status'; status: Status } | { kind: 'drop' } | { kind: 'none' };

interface Reading extends Omit<FoundMedication, 'status'> {
  own: Own;
  /** A schedule (interval or duration) was said: an administration with one is for home. */
  schedule: boolean;
  /** Dose, interval, duration or route said. */
  hasSchedule: boolean;
  /** An administer cue said with "agora"/"aqui"/"hoje" beside it, or a strong one. */
  now: boolean;
  /** Given now and, after that, for home ("aplicado agora, e repetir uma pipeta por mês em casa"): two items; where the home part begins. */
  alsoForHome: number | null;
  /** Only a per-weight-band rate was said ("1 ml para cada 50 kg"): a herd's or a label's, never an item. */
  herdOnly: boolean;
  /** Said after "se"/"caso" in its sentence: for later, if at all. */
  conditional: boolean;
  mention: Mention;
}

// biome-ignore format: a table reads better packed
const CONNECTORS_OF_ALIAS = new Set(['o', 'a', 'que', 'e', 'ou', 'seja', 'do', 'da', 'tipo', 'chamado', 'nome', 'comercial', 'generico', 'marca', 'um', 'uma']);
/** "antes do Otomax", "depois da dipirona": a drug named as a point in time, not a mention of its own. */
// biome-ignore format: a table reads better packed
const REFERENCE_BEFORE = new Set(['antes', 'depois', 'apos']);
/** "dermatite atópica", "otite ... externa": after these a name is the disease's adjective, not a drug (Atopica). */
const DISEASE_BEFORE = new Set(['dermatite', 'doenca', 'sindrome', 'atopia']);

const said = (text: string, w: Words, first: number, end: number) =>
  text
    .slice(w.starts[first], w.ends[end - 1])
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\s*\+\s*/g, ' com ')
    .replace(/[^a-z0-9µ/.,\s-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    // As the words were read: without the fillers and repeats inside the name ("drontal drontal puppy").
    .split(' ')
    .filter((word, i, all) => !FILLERS.has(word) && word !== all[i - 1])
    .join(' ');

/** Said right after a brand, part of the product's name (not its form, strength or weight band). */
const QUALIFIERS = new Set([
  'simples',
  'composto',
  'plus',
  'gold',
  'puppy',
  'gatos',
  'caes',
  'spectra',
  'trio',
  'forte',
  'duo',
  'combo',
  'max',
  'mini',
  'premium',
  'retard',
  'pet',
  'vet',
  'felino',
  'canino',
  'equino',
  'bovino',
  'ultra',
  'pro',
  'dog',
  'cat',
  'junior',
  'senior',
]);

/** Said after any name, a product line's word ("Glicopan Pet", "Eritrós Dog"): never a generic's form. */
// biome-ignore format: a table reads better packed
const BRAND_QUALIFIERS = new Set(['pet', 'dog', 'cat', 'puppy', 'gold', 'plus', 'spectra', 'trio', 'duo', 'combo', 'premium', 'junior', 'senior']);

/** Capitalised at a sentence's start before a count, and no drug ("Depois, um comprimido"). */
// biome-ignore format: a table reads better packed
const SENTENCE_OPENERS = new Set([
  'depois', 'entao', 'agora', 'hoje', 'amanha', 'doutor', 'doutora', 'pode', 'vamos', 'isso', 'certo', 'tambem', 'ainda', 'cada',
  'todo', 'toda', 'todos', 'todas', 'quanto', 'quantos', 'quantas', 'quando', 'como', 'aqui', 'senhor', 'senhora', 'dona', 'seu',
  'olha', 'veja', 'sempre', 'antes', 'apenas', 'somente', 'tipo', 'quase', 'metade', 'inteiro', 'inteira', 'manha', 'noite',
  'tarde', 'jejum', 'junto', 'juntos', 'primeiro', 'primeira', 'segundo', 'segunda', 'terceiro', 'terceira', 'ultimo', 'ultima',
  'outro', 'outra', 'mesmo', 'mesma', 'nenhum', 'nenhuma', 'algum', 'alguma', 'esse', 'essa', 'este', 'esta', 'aquele', 'aquela',
  'nesse', 'nessa', 'neste', 'nesta', 'desse', 'dessa', 'deste', 'desta', 'dele', 'dela', 'nele', 'nela', 'eles', 'elas',
  'ficou', 'fica', 'ficam', 'sera', 'seria', 'tambem', 'porque', 'porem', 'contudo', 'portanto', 'assim', 'inclusive', 'sim',
  'claro', 'beleza', 'perfeito', 'exato', 'exatamente', 'isso', 'otimo', 'certinho', 'tranquilo',
]);

/** Words that are never an unlisted drug's name, however they are said. */
const NOT_A_DRUG = new Set([
  ...GLUE,
  'dose',
  'doses',
  'dosagem',
  'total',
  'peso',
  'volume',
  'concentracao',
  'frasco',
  'ampola',
  'seringa',
  'sangue',
  'urina',
  'leite',
  'agua',
  'racao',
  'comida',
  'care',
  'critical',
  'alimento',
  'sache',
  'papinha',
  'cada',
  'mais',
  'menos',
  'cerca',
  'aproximadamente',
  'entre',
  'ate',
  'dar',
  'passar',
  'aplicar',
  'tomar',
  'usar',
  'fazer',
  'prescrevo',
  'apliquei',
  'receito',
  'iniciar',
  'manter',
  'seguir',
  'dieta',
  'paciente',
  'animal',
  'cao',
  'gato',
  'vaca',
  'cavalo',
  'egua',
  'bezerro',
  'filhote',
  'ela',
  'ele',
  'dele',
  'dela',
  'conduta',
  'tratamento',
  'prescricao',
  'plano',
  'receita',
  'peso',
  'pesando',
  // words with a drug class's ending that are no drug: a goat farm, a month
  'capril',
  'abril',
]);

/**
 * More endings of drug classes, for the plan only (the drafting grounding keeps its own list):
 * local anaesthetics (-caína), prokinetics (-prida), heparins, carbonic anhydrase inhibitors,
 * SSRIs, phenothiazines (-azina), antivirals (-ciclovir), antibodies (-mabe), kinase inhibitors
 * (-tinibe), triazines (-azurila), NK1 antagonists (-pitant), bisphosphonates (-dronato), ...
 */
const MORE_DRUG_ENDINGS =
  /^[a-z]{3,}(caina|prida|parina|zolamida|oxetina|azina|tadina|sulida|ciclovir|pramina|mabe?|tinibe?|azurila?|trexato|dronato|fenaco|pitanto?|metacina|tralina|rubicina|fosfamida|lactona|cilina|conazol|oxacina?|oxacino)$/;

/** A name no list holds: a word with a drug class's ending, or a capitalised word said right before a per-kilo dose ("Zolvix 2,5 mg/kg"). */
function unlistedAt(text: string, w: Words, at: number): Drug | null {
  const word = w.words[at]!;
  if (!/^[a-z]{4,}$/.test(word) || NOT_A_DRUG.has(word) || CUES.at(w.words, at)) return null;
  const drug: Drug = { name: word, generic: word, route: null, drugClass: 'unlisted' };
  if (hasDrugEnding(word) || MORE_DRUG_ENDINGS.test(word)) return drug;
  const capital = /\p{Lu}/u.test(text[w.starts[at]!] ?? '');
  const dose = capital ? doseAt(w.words, at + 1) : null;
  if (!dose || dose.herd) return null;
  // "Zolvix 2,5 mg/kg"; "Aurizon, dez gotas", "Padock, uma seringa" with a count of the product's
  // own form, when the word is no common word that opens a sentence.
  if (['mg/kg', 'mcg/kg', 'UI/kg', 'ml/kg'].includes(dose.unit)) return drug;
  return ['gota', 'comprimido', 'pipeta', 'aplicação'].includes(dose.unit) && word.length >= 5 && !SENTENCE_OPENERS.has(word) ? drug : null;
}

export function findMentions(text: string, w: Words, table: PhraseTable<Drug>): Mention[] {
  const { words } = w;
  const mentions: Mention[] = [];
  for (let at = 0; at < words.length; ) {
    const listed = table.at(words, at);
    const unlisted = listed ? null : unlistedAt(text, w, at);
    const hit = listed ?? (unlisted ? { value: unlisted, end: at + 1 } : null);
    // A brand's product qualifier said right after it is part of its name ("Buscopan simples", "Drontal Puppy").
    const qualifier = words[listed?.end ?? -1] ?? '';
    if (
      listed &&
      (BRAND_QUALIFIERS.has(qualifier) || (listed.value.generic !== listed.value.name && QUALIFIERS.has(qualifier))) &&
      !w.commaBefore[listed.end]
    ) {
      listed.end++;
    }
    // A name does not run over a sentence mark ("... vitamina. E ...").
    if (!hit || range(at + 1, hit.end).some((k) => w.breakBefore[k])) {
      at++;
      continue;
    }
    const last = mentions.at(-1);
    const between = last ? words.slice(last.end, at) : [];
    // "antes do Otomax", "após a dipirona" (not "E depois Tilosina, ...": a next step, a drug of its own).
    const reference =
      (words[at - 1] === 'apos' && !w.commaBefore[at]) ||
      (REFERENCE_BEFORE.has(words[at - 2] ?? '') && ['do', 'da', 'de', 'o', 'a'].includes(words[at - 1]!));
    if (reference || DISEASE_BEFORE.has(words[at - 1] ?? '')) {
      at = hit.end;
      continue;
    }
    // "Rimadyl, que é o carprofeno": one drug said twice is one mention, reported as first said.
    if (
      last &&
      between.length <= 3 &&
      between.every((word) => CONNECTORS_OF_ALIAS.has(word)) &&
      (last.drug.generic === hit.value.generic || last.drug.name === hit.value.generic || hit.value.name === last.drug.generic)
    ) {
      last.end = hit.end;
    } else mentions.push({ first: at, end: hit.end, drug: hit.value, said: said(text, w, at, hit.end) });
    at = hit.end;
  }
  return mentions;
}

/** "há dois meses", "há 10 dias": a time in the past. */
function agoAt(words: readonly string[], at: number): number | null {
  if (words[at] !== 'ha' && words[at] !== 'faz') return null;
  let k = at + 1;
  if (['uns', 'umas', 'mais', 'cerca', 'quase'].includes(words[k] ?? '')) k++;
  if (words[k] === 'de') k++;
  const unitAt = (j: number) => ['dia', 'dias', 'semana', 'semanas', 'mes', 'meses', 'ano', 'anos'].includes(words[j] ?? '');
  if (unitAt(k)) return k + 1; // "há meses"
  if (
    /^\d/.test(words[k] ?? '') ||
    ['um', 'uma', 'dois', 'duas', 'tres', 'quatro', 'cinco', 'seis', 'sete', 'oito', 'dez', 'quinze', 'vinte', 'trinta'].includes(
      words[k] ?? '',
    )
  ) {
    if (unitAt(k + 1)) return k + 2;
  }
  return null;
}

/** A dose said right before the drug, tied to it by "de": "meio comprimido de dipirona", "uma aplicação intramamária de cefalexina". */
function doseBefore(words: readonly string[], mention: Mention, limit: number): (Dose & { herd: boolean }) | null {
  const tie = mention.first - 1;
  if (!['de', 'do', 'da'].includes(words[tie] ?? '')) return null;
  for (let at = Math.max(limit, tie - 7); at < tie; at++) {
    const dose = doseAt(words, at);
    if (dose && (dose.end === tie || (dose.end === tie - 1 && /^intra|^sub|^oral$|^topic/.test(words[tie - 1]!)))) return dose;
  }
  return null;
}

/**
 * A route or form said before the drug and tied to it ("nebulização com ...", "colírio de ...",
 * "o colírio, o Tobrex", "pomada Furacin"), which the preamble walks back over; not a route said
 * after the drug before ("... IV e morfina").
 */
function routeOrFormBefore(words: readonly string[], k: number, from: number) {
  const tie = words[k] ?? '';
  const route = ROUTES_SAID.endingAt(words, k, 3);
  if (route && ['com', 'de', 'do', 'da', 'dos', 'das'].includes(tie)) return route;
  const form = FORMS.endingAt(words, k, 2);
  if (form && (k === from || ['com', 'de', 'do', 'da', 'o', 'a'].includes(tie))) return form;
  return null;
}

/** Where the preamble of a mention starts: back over cues, routes and little words, not past `limit` or a sentence mark. */
function preambleStart(w: Words, from: number, limit: number): number {
  let k = from;
  while (k > limit && from - k < PREAMBLE) {
    if (w.breakBefore[k]) break;
    const cue = CUES.endingAt(w.words, k, Math.min(LONGEST_CUE, k - limit), w.commaBefore);
    // Over a comma only to a cue ending there ("Pra casa, Cerenia"), not to what the drug before said.
    if (w.commaBefore[k] && !cue && k < from) break;
    if (cue) {
      k = cue.first;
      continue;
    }
    const past = PAST_MARKERS.endingAt(w.words, k, Math.min(4, k - limit));
    if (past) {
      k = past.first;
      continue;
    }
    const route = routeOrFormBefore(w.words, k, from);
    if (route && route.first >= limit) {
      k = route.first;
      continue;
    }
    if (GLUE.has(w.words[k - 1]!)) {
      k--;
      continue;
    }
    break;
  }
  // Little words at the start say nothing: the preamble begins at its first cue, route or form.
  while (k < from && !CUES.at(w.words, k) && !PAST_MARKERS.at(w.words, k) && !ROUTES_SAID.at(w.words, k) && !FORMS.at(w.words, k)) k++;
  return k;
}

interface CueHit {
  cue: Cue;
  first: number;
  end: number;
}

/**
 * The cue at `at`. It does not run over a comma ("Tiamulina, não, vou passar marbofloxacina"), and
 * "trocar a cada quatro meses" is a schedule, not "trocar a" (a switch).
 */
function cueAt(w: Words, at: number): { value: Cue; end: number } | null {
  const hit = CUES.at(w.words, at, w.commaBefore);
  return hit && w.words[hit.end] === 'cada' ? null : hit;
}

function cuesIn(w: Words, from: number, to: number): CueHit[] {
  const hits: CueHit[] = [];
  for (let k = from; k < to; ) {
    const hit = cueAt(w, k);
    if (hit && hit.end <= to) {
      hits.push({ cue: hit.value, first: k, end: hit.end });
      k = hit.end;
    } else k++;
  }
  return hits;
}

function pastIn(words: readonly string[], from: number, to: number): number[] {
  const used: number[] = [];
  for (let k = from; k < to; k++) {
    const hit = PAST_MARKERS.at(words, k);
    const ago = agoAt(words, k);
    const end = hit?.end ?? ago;
    if (end !== null && end !== undefined && end <= to) {
      for (let j = k; j < end; j++) used.push(j);
      k = end - 1;
    }
  }
  return used;
}

// biome-ignore format: a table reads better packed
const FIRST_PERSON_GIVEN = new Set(['dei', 'ja dei', 'demos', 'ja demos', 'passei']);
const PER_KG_UNITS = new Set<DoseUnit>(['mg/kg', 'ml/kg', 'mcg/kg', 'UI/kg']);
const INJECTED = new Set<Route>(['intravenous', 'intramuscular', 'subcutaneous']);

const range = (first: number, end: number) => Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
// biome-ignore format: a table reads better packed
const NOW = new Set(['agora', 'aqui', 'hoje']);
// biome-ignore format: a table reads better packed
const MASS_UNITS = new Set<DoseUnit>(['mg', 'g', 'ml', 'UI']);
/** A tablet's or a vial's strength said right after the name ("Synulox 50 mg"); a volume is what is given ("Pentabiótico, dez ml"). */
const STRENGTH_UNITS = new Set<DoseUnit>(['mg', 'g', 'UI']);
const PERIOD_AFTER_DOSE: Record<string, number> = { dia: 24, semana: 168, mes: 720 };
/** Where a dose goes, said between it and its period ("uma pipeta no dorso por mês"). */
// biome-ignore format: a table reads better packed
const SITE_WORDS = new Set(['no', 'na', 'nos', 'nas', 'dorso', 'nuca', 'pescoco', 'lombo', 'pele', 'costas', 'cernelha']);

/** What one mention says; its status is decided later, with its list and heading. */
function readMention(
  w: Words,
  mention: Mention,
  preambleFirst: number,
  reachEnd: number,
  preDose: (Dose & { herd: boolean }) | null,
): Reading {
  const { words } = w;
  const used: number[] = range(mention.first, mention.end);
  const before = cuesIn(w, preambleFirst, preDose?.first ?? mention.first);
  const pastBefore = pastIn(words, preambleFirst, mention.first);

  let dose: (Dose & { herd: boolean }) | null = preDose && !preDose.herd ? preDose : null;
  if (preDose) used.push(...range(preDose.first, preDose.end));
  let strength = false;
  let interval: Interval | null = null;
  let weakInterval: Interval | null = null;
  let duration: { days: number | null; first: number; end: number } | null = null;
  let route: Route | null = null;
  let formRoute: Route | null = null;
  let herd = preDose?.herd ?? false;
  let firstAttribute = Number.POSITIVE_INFINITY;
  const after: CueHit[] = [];
  /** Where a cue for home is said after the drug, however far in its reach (for `alsoForHome`). */
  const laterForHome: number[] = [];
  let pastAfter: number[] = [];
  let breaks = 0;

  for (let k = mention.end; k < reachEnd; ) {
    if (w.breakBefore[k] && k > mention.end) breaks++;
    const distance = k - mention.end;
    const repeat: ReturnType<typeof repeatAt> = interval === null ? repeatAt(words, k) : null;
    if (repeat) {
      interval = { hours: repeat.hours, first: repeat.first, end: repeat.end, weak: false };
      used.push(...range(repeat.first, repeat.end));
      laterForHome.push(k);
      k = repeat.end;
      continue;
    }
    if (distance < CUE_REACH) {
      const cue = cueAt(w, k);
      if (cue && (cue.value === 'prescribe' || cue.value === 'home')) laterForHome.push(k);
      if (cue && cue.end <= reachEnd && afterCueCounts(cue.value, words, k, cue.end, distance, breaks, firstAttribute)) {
        after.push({ cue: cue.value, first: k, end: cue.end });
        k = cue.end;
        continue;
      }
      // "Amoxicilina ele tomou mês passado": a past time close to the drug, in its sentence, before its schedule.
      if (breaks === 0 && distance < 8 && firstAttribute === Number.POSITIVE_INFINITY) {
        const past = pastIn(words, k, Math.min(reachEnd, k + 4));
        if (past.length > 0 && past[0] === k) {
          pastAfter = past;
          k = past.at(-1)! + 1;
          continue;
        }
      }
    }
    const foundDose = doseAt(words, k);
    if (foundDose) {
      if (foundDose.herd) herd = true;
      else if (dose === null || (strength && !MASS_UNITS.has(foundDose.unit))) {
        // "Synulox 50 mg, um comprimido": a strength right after the name gives way to a count said after it.
        strength = dose === null && STRENGTH_UNITS.has(foundDose.unit) && k - mention.end <= 1;
        dose = foundDose;
        used.push(...range(foundDose.first, foundDose.end));
        firstAttribute = Math.min(firstAttribute, k);
      }
      k = foundDose.end;
      // "um comprimido por mês", "repetir uma pipeta por mês", "uma pipeta no dorso por mês"
      let period = k;
      while (period < k + 3 && SITE_WORDS.has(words[period] ?? '') && !w.breakBefore[period]) period++;
      if (['por', 'ao', 'a', '/'].includes(words[period] ?? '') && PERIOD_AFTER_DOSE[words[period + 1] ?? ''] === undefined) period = k;
      if (
        interval === null &&
        ['por', 'ao', 'a', '/'].includes(words[period] ?? '') &&
        PERIOD_AFTER_DOSE[words[period + 1] ?? ''] !== undefined &&
        !w.breakBefore[period]
      ) {
        interval = { hours: PERIOD_AFTER_DOSE[words[period + 1]!]!, first: period, end: period + 2, weak: false };
        used.push(...range(foundDose.first, period + 2));
        k = period + 2;
      }
      continue;
    }
    // "e depois um por mês", "repete um por mês": a count without its form, and its period.
    const countPeriod =
      ['um', 'uma', '1'].includes(words[k]!) && ['por', 'ao', 'a'].includes(words[k + 1] ?? '')
        ? PERIOD_AFTER_DOSE[words[k + 2] ?? '']
        : undefined;
    if (interval === null && countPeriod !== undefined) {
      interval = { hours: countPeriod, first: k, end: k + 3, weak: false };
      used.push(...range(k, k + 3));
      laterForHome.push(k);
      k += 3;
      continue;
    }
    // "uma cápsula por dia", "um sachê por dia": no unit of the plan, but the interval is said.
    const capsules: Interval | null = interval === null ? capsulesPerPeriod(words, k) : null;
    if (capsules) {
      interval = capsules;
      used.push(...range(k, capsules.end));
      k = capsules.end;
      continue;
    }
    const foundInterval: Interval | null = interval === null ? intervalAt(words, k) : null;
    if (foundInterval && !(foundInterval.weak && weakInterval)) {
      if (foundInterval.weak) weakInterval = foundInterval;
      else {
        interval = foundInterval;
        used.push(...range(foundInterval.first, foundInterval.end));
      }
      firstAttribute = Math.min(firstAttribute, k);
      k = foundInterval.end;
      continue;
    }
    const foundDuration: ReturnType<typeof durationAt> = duration === null ? durationAt(words, k) : null;
    if (foundDuration) {
      duration = foundDuration;
      used.push(...range(foundDuration.first, foundDuration.end));
      firstAttribute = Math.min(firstAttribute, k);
      k = foundDuration.end;
      continue;
    }
    const saidRoute: { value: Route; end: number } | null = route === null ? ROUTES_SAID.at(words, k) : null;
    if (saidRoute) {
      route = saidRoute.value;
      used.push(...range(k, saidRoute.end));
      firstAttribute = Math.min(firstAttribute, k);
      k = saidRoute.end;
      continue;
    }
    // A form right after the name ("Cerenia comprimido", "meloxicam suspensão oral", "flunixin em pasta").
    const form: { value: Route; end: number } | null = formRoute === null && breaks === 0 ? FORMS.at(words, k) : null;
    if (form) {
      formRoute = form.value;
      used.push(...range(k, form.end));
      k = form.end;
      continue;
    }
    k++;
  }
  // A route or form said before the drug ("nebulização com ...", "um colírio de ...", "pomada de ...").
  let routeBefore: Route | null = null;
  for (let k = preambleFirst; k < mention.first; k++) {
    const hit = ROUTES_SAID.at(words, k) ?? FORMS.at(words, k);
    if (hit && hit.end <= mention.first) {
      routeBefore ??= hit.value;
      used.push(...range(k, hit.end));
    }
  }

  const cues = [...before, ...after];
  for (const hit of cues) used.push(...range(hit.first, hit.end));
  if (interval === null && weakInterval !== null) {
    interval = weakInterval;
    used.push(...range(weakInterval.first, weakInterval.end));
  }
  const schedule = (interval !== null && interval.hours !== null) || (duration !== null && duration.days !== null);
  const hasSchedule = dose !== null || interval !== null || duration !== null || route !== null;
  const past = pastBefore.length > 0 || pastAfter.length > 0;
  used.push(...pastBefore, ...pastAfter);

  const has = (cue: Cue) => cues.some((hit) => hit.cue === cue);
  const now = cues.some(
    (hit) =>
      hit.cue === 'administer' ||
      (hit.cue === 'administer_weak' &&
        (NOW.has(words[hit.end] ?? '') || NOW.has(words[hit.first - 1] ?? '') || NOW.has(words[hit.end + 1] ?? ''))),
  );
  // "Nesse aqui já dei toltrazuril, vinte miligramas por quilo, pela boca": a vet's "dei", said with a
  // per-kilo dose or an injection route, is a dose given now; a tutor's ("Dei Luftal ontem") is history.
  const givenByVet =
    !past &&
    cues.some((hit) => hit.cue === 'history' && FIRST_PERSON_GIVEN.has(words.slice(hit.first, hit.end).join(' '))) &&
    ((dose !== null && PER_KG_UNITS.has(dose.unit)) || (route !== null && INJECTED.has(route)));
  let own: Own;
  // "Tomava Rimadyl, suspenso há cinco dias pelo colega": stopped before the visit.
  if (has('suspend') && past && !has('prescribe')) own = { kind: 'drop' };
  else if (has('suspend')) own = { kind: 'status', status: 'suspended' };
  else if (givenByVet) own = { kind: 'status', status: 'administered' };
  else if (has('reject')) own = { kind: 'drop' };
  else if (has('cleaning') && mention.drug.drugClass === 'fluid_and_supplement') own = { kind: 'drop' };
  else if (past && !has('prescribe')) own = { kind: 'drop' };
  else if (has('administer') || has('administer_weak')) own = { kind: 'status', status: 'administered' };
  else if (has('history') && !has('prescribe')) own = { kind: 'drop' };
  else if (has('prescribe') || has('home')) own = { kind: 'status', status: 'prescribed' };
  else own = { kind: 'none' };

  // "Se precisar, a gente faz dexametasona na veia": said on a condition, for later; "se der
  // diarreia, suspende" is no stop made in this visit.
  let conditional = false;
  for (let k = mention.first - 1; k >= Math.max(0, mention.first - 15); k--) {
    if (['se', 'caso'].includes(words[k]!)) conditional = true;
    if (w.breakBefore[k]) break;
  }
  if (conditional && own.kind === 'status' && own.status === 'suspended') own = { kind: 'drop' };
  else if (conditional && own.kind === 'status' && own.status === 'administered') own = { kind: 'status', status: 'prescribed' };
  const firstAdministered = cues.find((hit) => hit.cue === 'administer')?.first;
  const alsoForHome = firstAdministered !== undefined && schedule ? (laterForHome.find((at) => at > firstAdministered) ?? null) : null;
  const unitRoute = dose ? (ROUTE_OF_UNIT[dose.unit] ?? null) : null;
  return {
    alsoForHome,
    drug: mention.said,
    generic: mention.drug.generic,
    dose_value: dose?.value ?? null,
    dose_unit: dose?.unit ?? null,
    route: route ?? routeBefore ?? formRoute ?? unitRoute ?? productRoute(mention.drug),
    interval_hours: interval?.hours ?? null,
    duration_days: duration?.days ?? null,
    used,
    own,
    schedule,
    hasSchedule,
    now,
    herdOnly: herd && dose === null,
    conditional,
    mention,
  };
}

// biome-ignore format: a table reads better packed
const UNCOUNTED_FORMS = new Set(['capsula', 'capsulas', 'sache', 'saches', 'envelope', 'envelopes', 'medida', 'medidas', 'colher', 'colheres', 'petisco']);

function capsulesPerPeriod(words: readonly string[], at: number): Interval | null {
  if (!UNCOUNTED_FORMS.has(words[at + 1] ?? '') || !/^(\d|um|uma|duas|dois|meia|meio)/.test(words[at] ?? '')) return null;
  const period = ['por', 'ao', 'a'].includes(words[at + 2] ?? '') ? PERIOD_AFTER_DOSE[words[at + 3] ?? ''] : undefined;
  return period === undefined ? null : { hours: period, first: at, end: at + 4, weak: false };
}

/**
 * The route a product's name alone says, when nothing else does: a colírio's brand is ophthalmic,
 * an otológico's otic. Other products' single forms are not taken for a route nobody said (a
 * collar, a chewable): the lexicon keeps them as data.
 */
function productRoute(drug: Drug): Route | null {
  return drug.route === 'ophthalmic' || drug.route === 'otic' ? drug.route : null;
}

/** After the drug, which cues still speak of it. */
function afterCueCounts(
  cue: Cue,
  words: readonly string[],
  at: number,
  end: number,
  distance: number,
  breaks: number,
  firstAttribute: number,
): boolean {
  switch (cue) {
    case 'suspend':
      return true;
    // In its sentence, or in a later one after its dose or route ("Cerenia, 1 mg/kg SC. Já apliquei."),
    // not a later "Fiz a fluoresceína" about something else.
    case 'administer':
    case 'administer_weak':
      return breaks === 0 || firstAttribute !== Number.POSITIVE_INFINITY;
    // "Meloxicam não vou passar", "o cetoprofeno não", "Metronidazol eu vou deixar sem": right after the name only.
    case 'reject':
      return (
        (distance <= 3 && (words[at] === 'nao' || words.slice(at, end).includes('sem'))) ||
        // "Poderia usar cetoprofeno IM, mas prefiro não": a "but not" in its sentence.
        (breaks === 0 && words[at] === 'mas')
      );
    case 'history':
      return breaks === 0 && distance < 6 && firstAttribute === Number.POSITIVE_INFINITY;
    case 'prescribe':
    case 'home':
      return breaks === 0 && distance < 6;
    case 'cleaning':
      return false;
  }
}

/** The status each word is under, from the headings of the note (null: none). */
function sectionStatuses(w: Words): (Status | null)[] {
  const statuses = new Array<Status | null>(w.words.length).fill(null);
  let current: Status | null = null;
  for (let k = 0; k < w.words.length; k++) {
    if (k === 0 || w.breakBefore[k]) {
      const hit = SECTIONS.at(w.words, k);
      // A heading ends at a sentence mark ("Prescrição:", "Aplicado agora:", "Prescrição para casa.").
      if (hit && (hit.end >= w.words.length || w.breakBefore[hit.end])) current = hit.value;
    }
    statuses[k] = current;
  }
  return statuses;
}

/**
 * The medications of the words. `stops` are word indices where another topic begins (an exam, a
 * vaccine, a return): a drug's reach ends there.
 */
export function findMedications(text: string, w: Words, table: PhraseTable<Drug>, stops: ReadonlySet<number>): FoundMedication[] {
  const { words } = w;
  const mentions = findMentions(text, w, table);
  const preDoses = mentions.map((mention, i) => doseBefore(words, mention, i > 0 ? mentions[i - 1]!.end : 0));
  const preambles = mentions.map((mention, i) => preambleStart(w, preDoses[i]?.first ?? mention.first, i > 0 ? mentions[i - 1]!.end : 0));

  const readings: Reading[] = mentions.map((mention, i) => {
    let reachEnd = Math.min(words.length, mention.end + REACH, i + 1 < mentions.length ? preambles[i + 1]! : words.length);
    for (let k = mention.end; k < reachEnd; k++) {
      // "e na internação segue de doze em doze horas": the hospital order of the same drug, not another topic.
      if (words[k] === 'internacao' && words[k - 1] === 'na') continue;
      if (stops.has(k) || TOPIC_STOPS.has(words[k]!)) {
        reachEnd = k;
        break;
      }
    }
    return readMention(w, mention, preambles[i]!, reachEnd, preDoses[i]!);
  });

  // A list in one sentence shares its cue: forward from a cue said before the list, backward from one said after it.
  const inList = (i: number) => {
    const a = mentions[i]!;
    const b = mentions[i + 1]!;
    if (b.first - a.end > LIST_SPAN) return false;
    // "trocar o Rimadyl pelo Previcox": the second replaces the first, it is no list.
    if (words.slice(a.end, b.first).some((word) => word === 'pelo' || word === 'pela') || words[b.first - 1] === 'por') return false;
    for (let k = a.end; k <= b.first; k++) if (w.breakBefore[k]) return false;
    return true;
  };
  const own = readings.map((reading) => reading.own);
  const inherited: Own[] = own.map((item) => item);
  for (let i = 1; i < readings.length; i++) if (inherited[i]!.kind === 'none' && inList(i - 1)) inherited[i] = inherited[i - 1]!;
  for (let i = readings.length - 2; i >= 0; i--) if (inherited[i]!.kind === 'none' && inList(i)) inherited[i] = inherited[i + 1]!;
  const sections = sectionStatuses(w);
  // "Sedei com cetamina e midazolam na veia": a bare name joined to the next takes its route.
  for (let i = readings.length - 2; i >= 0; i--) {
    const reading = readings[i]!;
    const between = words.slice(mentions[i]!.end, mentions[i + 1]!.first);
    const joined =
      between.length > 0 &&
      between.every((word) => ['e', 'o', 'a', 'com', 'mais'].includes(word)) &&
      !range(mentions[i]!.end, mentions[i + 1]!.first + 1).some((k) => w.breakBefore[k]);
    if (joined && !reading.hasSchedule && reading.route === null) reading.route = readings[i + 1]!.route;
  }

  const decided: (FoundMedication & { cued: boolean; hasSchedule: boolean })[] = [];
  for (const [i, reading] of readings.entries()) {
    if (reading.herdOnly) continue;
    const said = inherited[i]!;
    if (said.kind === 'drop') continue;
    let status: Status | null = said.kind === 'status' ? said.status : sections[reading.mention.first]!;
    // Nothing says it: an injection with no interval and no duration is given in the visit
    // ("Finadyne, treze ml, na veia"); anything else is for home.
    if (
      status === null &&
      !reading.conditional &&
      reading.route !== null &&
      INJECTED.has(reading.route) &&
      reading.interval_hours === null &&
      reading.duration_days === null
    )
      status = 'administered';
    if (status === null && reading.hasSchedule) status = 'prescribed';
    if (status === null) status = 'prescribed';
    // Given now and also scheduled ("também aplicado agora, e repetir uma pipeta por mês em casa"): for home.
    if (status === 'administered' && reading.schedule && (own[i]!.kind !== 'status' || !reading.now || reading.interval_hours !== null))
      status = 'prescribed';
    const {
      own: _own,
      schedule: _schedule,
      now: _now,
      herdOnly: _herd,
      conditional: _if,
      mention: _mention,
      alsoForHome,
      hasSchedule,
      ...found
    } = reading;
    const cued = said.kind === 'status' || sections[reading.mention.first] !== null;
    if (alsoForHome !== null) {
      const now = found.used.filter((at) => at < alsoForHome);
      decided.push({ ...found, used: now, interval_hours: null, duration_days: null, status: 'administered', cued, hasSchedule });
      status = 'prescribed';
    }
    decided.push({ ...found, status, cued, hasSchedule });
  }
  return mergeRepeats(decided);
}

const sameDrug = (a: FoundMedication, b: FoundMedication) =>
  a.drug === b.drug || a.drug.split(' ')[0] === b.drug || b.drug.split(' ')[0] === a.drug;
const FIELDS = ['dose_value', 'dose_unit', 'route', 'interval_hours', 'duration_days'] as const;

/** A drug said again adds what the first item of it lacks; said again with nothing, it adds nothing. */
function mergeRepeats(readings: (FoundMedication & { cued: boolean; hasSchedule: boolean })[]): FoundMedication[] {
  const kept: (FoundMedication & { cued: boolean; hasSchedule: boolean })[] = [];
  for (const reading of readings) {
    const conflicts = (item: FoundMedication) =>
      FIELDS.some((field) => item[field] !== null && reading[field] !== null && item[field] !== reading[field]);
    const earlier = kept.find((item) => sameDrug(item, reading) && item.status === reading.status && !conflicts(item));
    if (earlier) {
      let added = false;
      for (const field of FIELDS) {
        if (earlier[field] === null && reading[field] !== null) {
          (earlier[field] as unknown) = reading[field];
          added = true;
        }
      }
      if (added) earlier.used.push(...reading.used);
      continue;
    }
    // Only a name, no cue, nothing of a schedule: a drug talked about, not an item.
    if (!reading.cued && !reading.hasSchedule) continue;
    kept.push(reading);
  }
  return kept.map(({ cued: _cued, hasSchedule: _hasSchedule, ...medication }) => medication);
}
