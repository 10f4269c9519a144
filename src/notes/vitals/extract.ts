// Deterministic pt-BR extraction of vitals from free text: a cue ("temperatura", "FC", "TPC",
// "mucosas"), then hedges or a comparator ("cerca de", "menor que"), then a number and its unit; or
// a number whose unit names the vital by itself ("180 bpm", "39,5 °C", "12 kg"). A number that is
// implausible for the vital, or followed by another unit (days, mg, tablets), is not that vital:
// doses, ages, prices and lab values never become vitals. No language model, no database.

import { type ReadNumber, readNumber, type SpokenFraction } from '../../language/spoken-numbers.ts';
import type { Comparator, MucousMembranes, VitalCode } from '../store/vitals.schemas.ts';
import {
  COMPARATOR_PHRASES,
  CUES,
  type Cue,
  FILLERS,
  NOT_BODY_TEMPERATURE,
  NOT_TODAYS_WEIGHT,
  type NumericCode,
  OTHER_UNITS,
  PAST_AFTER,
  PLAUSIBLE,
  SELF_NAMING_UNITS,
  UNITS,
} from './cues.ts';
import { mucousAt } from './mucous-membranes.ts';
import { speciesAt } from './species.ts';
import { tokenize } from './tokens.ts';

export interface FoundVital {
  code: VitalCode;
  value: number | MucousMembranes;
  unit: string | null;
  comparator: Comparator | null;
  /** Where the words are in the text (characters). */
  start: number;
  end: number;
}

const UNIT_OF: Record<NumericCode, string> = {
  temperature: '°C',
  weight: 'kg',
  heart_rate: 'bpm',
  respiratory_rate: '/min',
  capillary_refill_time: 's',
  body_condition_score: '/9',
  dehydration: '%',
};
const FRACTION: Partial<Record<NumericCode, SpokenFraction>> = { temperature: 'decimal', weight: 'grams' };
/** How far a cue reaches over hedges and fillers to its number. */
const MAX_GAP = 6;

const startsWith = (words: string[], at: number, phrase: string[]) => phrase.every((word, i) => words[at + i] === word);
const isNumberAt = (words: string[], at: number) => readNumber(words, at) !== null;
const isLoneOne = (words: string[], at: number, number: ReadNumber) => number.end === at + 1 && (words[at] === 'um' || words[at] === 'uma');

function comparatorAt(words: string[], at: number) {
  const match = COMPARATOR_PHRASES.find((phrase) => startsWith(words, at, phrase.words));
  return match ? { comparator: match.comparator, end: at + match.words.length } : null;
}

function unitAt(code: NumericCode, words: string[], at: number): { factor: number; end: number } | null {
  const unit = UNITS[code].find((candidate) => startsWith(words, at, candidate.words));
  return unit ? { factor: unit.factor ?? 1, end: at + unit.words.length } : null;
}

/** "3/5", "3 de 5", "três em cinco", "4 na escala de 1 a 9", "ECC 4 (1-9)": the scale said, or null. */
function scaleAfter(words: string[], at: number): { scale: 5 | 9; end: number } | null {
  const scaleAt = (k: number) => {
    const number = readNumber(words, k);
    return number && (number.value === 5 || number.value === 9) ? { scale: number.value as 5 | 9, end: number.end } : null;
  };
  if (['/', 'de', 'em', 'sobre'].includes(words[at] ?? '')) {
    const direct = scaleAt(at + 1);
    if (direct) return direct;
  }
  for (let k = at; k < Math.min(words.length, at + 4); k++) {
    if (words[k] !== 'escala') continue;
    let next = k + 1;
    if (words[next] === 'de') next++;
    const first = readNumber(words, next);
    if (first?.value === 1 && (words[first.end] === 'a' || isNumberAt(words, first.end))) {
      return scaleAt(words[first.end] === 'a' ? first.end + 1 : first.end);
    }
    return scaleAt(next);
  }
  return null;
}

interface Reading {
  value: number;
  unit: string;
  comparator: Comparator | null;
  /** Token after the last word read. */
  end: number;
}

/** The number at `at` with what follows it (a range, the unit, grams after kilos, the scale), checked. */
function readValue(
  code: NumericCode,
  words: string[],
  at: number,
  comparator: Comparator | null,
  between: boolean,
  hasCue: boolean,
): Reading | null {
  const number = readNumber(words, at, FRACTION[code] ?? null);
  if (!number) return null;
  let { value, end } = number;
  // "6 a 8%", "entre 6 e 8%": the lower bound, kept as ">=" (true of the whole range).
  if (words[end] === 'a' || (between && words[end] === 'e')) {
    const upper = readNumber(words, end + 1, FRACTION[code] ?? null);
    if (upper && upper.value > value && comparator === null && !OTHER_UNITS.has(words[upper.end] ?? '')) {
      comparator = '>=';
      end = upper.end;
    }
  }
  let unit = UNIT_OF[code];
  const said = unitAt(code, words, end);
  if (said) {
    value *= said.factor;
    end = said.end;
    if (code === 'weight' && words[end] === 'e') {
      // "doze quilos e trezentos (gramas)", "oito quilos e meio"
      if (words[end + 1] === 'meio' || words[end + 1] === 'meia') {
        value += 0.5 * said.factor;
        end += 2;
      } else if (said.factor === 1) {
        const grams = readNumber(words, end + 1);
        if (grams && grams.value < 1000 && !OTHER_UNITS.has(words[grams.end] ?? '')) {
          value += grams.value / 1000;
          end = grams.end;
          if (['g', 'gr', 'gramas', 'grama'].includes(words[end] ?? '')) end++;
        }
      }
    } else if (words[end] === 'e' && (words[end + 1] === 'meio' || words[end + 1] === 'meia')) {
      // "trinta e nove graus e meio", "dois segundos e meio"
      value += 0.5;
      end += 2;
    }
  } else {
    if (OTHER_UNITS.has(words[end] ?? '')) return null;
    if (isLoneOne(words, at, number) && !hasCue) return null;
  }
  if (code === 'body_condition_score') {
    const scale = scaleAfter(words, end);
    if (scale) {
      if (value > scale.scale) return null;
      unit = `/${scale.scale}`;
      end = scale.end;
    }
  }
  const plausible = PLAUSIBLE[code];
  if (value < plausible.min || value > plausible.max) return null;
  if (plausible.integer && !Number.isInteger(value)) return null;
  return { value: Math.round(value * 1000) / 1000, unit, comparator, end };
}

/** The value a cue announces: over fillers and a comparator to the number. */
function afterCue(cue: Cue, words: string[], at: number): Reading | null {
  let comparator: Comparator | null = null;
  let between = false;
  let k = at;
  for (let gap = 0; k < words.length; ) {
    const word = words[k]!;
    if (cue.code === 'temperature' && NOT_BODY_TEMPERATURE.has(word)) return null;
    if (cue.code === 'weight' && NOT_TODAYS_WEIGHT.has(word)) return null;
    if (word === 'mais' && words[k + 1] === 'ou' && words[k + 2] === 'menos') {
      k += 3;
      continue;
    }
    const compared: ReturnType<typeof comparatorAt> = comparator === null ? comparatorAt(words, k) : null;
    if (compared) {
      comparator = compared.comparator;
      k = compared.end;
      continue;
    }
    if (word === 'entre') {
      between = true;
      k++;
      continue;
    }
    if (isNumberAt(words, k)) {
      const reading = readValue(cue.code, words, k, comparator, between, true);
      if (reading) return reading;
      // "FC um pouco alta, 180": a lone "um" was an article.
      const number = readNumber(words, k)!;
      if (!isLoneOne(words, k, number)) return null;
    } else if (!FILLERS.has(word)) return null;
    if (cue.strict) return null;
    if (++gap > MAX_GAP) return null;
    k++;
  }
  return null;
}

/** A cue of `code` at `at` ("8% de desidratação", "39,8 de temperatura"). */
function cueOfCodeAt(code: NumericCode, words: string[], at: number): number | null {
  const cue = CUES.find((candidate) => candidate.code === code && !candidate.strict && startsWith(words, at, candidate.words));
  return cue ? at + cue.words.length : null;
}

/** Is the weight before `at` the patient's today (not a bag of feed, a loss, a dose band)? */
function weightContextOk(words: string[], first: number, end: number): boolean {
  for (let k = Math.max(0, first - 6); k < first; k++) {
    if (NOT_TODAYS_WEIGHT.has(words[k]!) || ['dose', 'mg', 'ml', 'para', 'ate', 'acima', 'abaixo', 'entre'].includes(words[k]!))
      return false;
  }
  if (first > 0 && ['/', 'por', 'a', 'e'].includes(words[first - 1]!) && isNumberAt(words, first - 2)) return false;
  // A dose rate: "1 ml/50 kg", "um comprimido por 10 kg", "a cada 10 kg" is per body weight, not a weight.
  if (['/', 'por', 'cada'].includes(words[first - 1] ?? '')) return false;
  for (let k = end; k < Math.min(words.length, end + 3); k++) if (PAST_AFTER.has(words[k]!)) return false;
  // "de 2 kg" is a package ("a de 2 kg", "saco de 15 kg") unless an animal comes before ("um cão de 12 kg").
  if (words[first - 1] === 'de' && !speciesAt(words, first - 2) && !['paciente', 'animal'].includes(words[first - 2] ?? '')) return false;
  const next = words[end];
  if (next === 'de' || next === 'do' || next === 'da') return cueOfCodeAt('weight', words, end + 1) !== null;
  return !['/', 'por', 'a', 'em', 'ao', 'no', 'na', 'x'].includes(next ?? '');
}

function temperatureContextOk(words: string[], first: number, end: number): boolean {
  for (let k = Math.max(0, first - 4); k < Math.min(words.length, end + 3); k++) if (NOT_BODY_TEMPERATURE.has(words[k]!)) return false;
  if (words[first - 1] === 'entre' || words[first - 2] === 'entre') return false;
  // "entre 25 e 30 graus", "de 2 a 8 graus": a range of storage or room temperatures.
  return !(['a', 'e'].includes(words[first - 1] ?? '') && isNumberAt(words, first - 2));
}

/** A number whose unit names the vital, or followed by "de <cue>": "180 bpm", "8% de desidratação". */
function unitFirstAt(words: string[], at: number): { code: NumericCode; reading: Reading } | null {
  if (!isNumberAt(words, at) || (at > 0 && isNumberAt(words, at - 1))) return null;
  // Inside a number said in words ("cento e OITENTA"): the whole number was tried where it starts.
  if (!/^\d/.test(words[at]!) && words[at - 1] === 'e' && at > 1 && isNumberAt(words, at - 2) && !/^\d/.test(words[at - 2]!)) return null;
  for (const code of ['heart_rate', 'respiratory_rate', 'temperature', 'dehydration', 'weight'] as const) {
    const reading = readValue(code, words, at, null, false, false);
    if (!reading) continue;
    // "de desidratação", "de temperatura", "desidratado": a cue after the number names it. A weight
    // still needs its context: "1 ml para cada 50 kg de peso vivo" is a dose rate, not the patient's.
    const cueAfter =
      cueOfCodeAt(code, words, reading.end) ?? (words[reading.end] === 'de' ? cueOfCodeAt(code, words, reading.end + 1) : null);
    if (cueAfter !== null) {
      if (code === 'weight' && !weightContextOk(words, at, reading.end)) continue;
      return { code, reading: { ...reading, end: cueAfter } };
    }
    const numberEnd = readNumber(words, at, FRACTION[code] ?? null)!.end;
    const unitWords = words.slice(numberEnd, reading.end);
    const naming = SELF_NAMING_UNITS[code]?.some((phrase) => startsWith(unitWords, 0, phrase));
    if (!naming) continue;
    if (code === 'temperature' && (!temperatureContextOk(words, at, reading.end) || reading.value < 35 || reading.value > 43)) continue;
    if (code === 'weight' && !weightContextOk(words, at, reading.end)) continue;
    return { code, reading };
  }
  return null;
}

export function findVitals(text: string): FoundVital[] {
  const tokens = tokenize(text);
  const words = tokens.map((token) => token.word);
  const used = new Array<boolean>(words.length).fill(false);
  const found: (FoundVital & { first: number })[] = [];
  const take = (
    code: VitalCode,
    value: FoundVital['value'],
    unit: string | null,
    comparator: Comparator | null,
    first: number,
    end: number,
  ) => {
    for (let k = first; k < end; k++) used[k] = true;
    found.push({ code, value, unit, comparator, start: tokens[first]!.start, end: tokens[end - 1]!.end, first });
  };

  for (let i = 0; i < words.length; i++) {
    if (used[i]) continue;
    const colours = mucousAt(words, i);
    if (colours.length > 0) {
      for (const colour of colours) take('mucous_membranes', colour.value, null, null, colour.first, colour.end);
      continue;
    }
    // A one-letter cue ("T") is not a cue inside a word run like "T4" or "vitamina T".
    const cue = CUES.find((candidate) => startsWith(words, i, candidate.words) && candidate.words.every((_, j) => !used[i + j]));
    if (!cue) continue;
    if (cue.code === 'weight' && i > 0 && NOT_TODAYS_WEIGHT.has(words[i - 1]!)) continue;
    if (cue.code === 'weight' && i > 1 && words[i - 1] === 'de' && NOT_TODAYS_WEIGHT.has(words[i - 2]!)) continue;
    const reading = afterCue(cue, words, i + cue.words.length);
    if (reading) take(cue.code, reading.value, reading.unit, reading.comparator, i, reading.end);
  }
  for (let i = 0; i < words.length; i++) {
    if (used[i]) continue;
    const hit = unitFirstAt(words, i);
    if (hit) take(hit.code, hit.reading.value, hit.reading.unit, hit.reading.comparator, i, hit.reading.end);
  }
  return found.sort((a, b) => a.first - b.first).map(({ first: _first, ...vital }) => vital);
}
