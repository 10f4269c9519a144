// Dosing intervals as vets say and write them, all read as "every N hours": "de doze em doze
// horas", "a cada 12 h", "12/12 h", "q12h", "duas vezes ao dia", "2x/dia", BID/SID/TID/QID, "a cada
// dois dias" (48 h), "uma vez por semana" (168 h), "mensalmente" (720 h), "de manhã e à noite"
// (12 h), "manhã, tarde e noite" (8 h), "diariamente" (24 h); and "dose única", which says there
// is no interval. One reader for the drafting grounding and the plan extraction. Words are folded
// (lower case, no accents); punctuation may be absent or present as "/" only. Each reading looks
// at a bounded number of words past `at`.

import { readAmount } from './spoken-numbers.ts';

export interface Interval {
  /** Hours between doses; null for a single dose ("dose única"). */
  hours: number | null;
  /** Word range [first, end). */
  first: number;
  end: number;
  /** A lone part of the day ("à noite", "de manhã"): once a day, but only a hint, not a schedule said. */
  weak: boolean;
}

const LATIN: Record<string, number> = { sid: 24, bid: 12, tid: 8, qid: 6 };
const HOURS = new Set(['h', 'hr', 'hrs', 'hs', 'hora', 'horas']);
/** Hours in one of each period word. */
// biome-ignore format: a table reads better packed
const PERIOD_HOURS: Record<string, number> = {
  h: 1, hr: 1, hrs: 1, hs: 1, hora: 1, horas: 1, dia: 24, dias: 24, semana: 168, semanas: 168, mes: 720, meses: 720,
};
/** "todo dia", "diariamente", ...: the period said in one word or two. */
const EVERY: [string[], number][] = [
  [['diariamente'], 24],
  [['todo', 'dia'], 24],
  [['todos', 'os', 'dias'], 24],
  [['toda', 'manha'], 24],
  [['toda', 'noite'], 24],
  [['dia', 'sim', 'dia', 'nao'], 48],
  [['dia', 'sim', 'outro', 'nao'], 48],
  [['em', 'dias', 'alternados'], 48],
  [['semanalmente'], 168],
  [['toda', 'semana'], 168],
  [['uma', 'vez', 'na', 'semana'], 168],
  [['semanal'], 168],
  [['quinzenalmente'], 360],
  [['quinzenal'], 360],
  [['mensal'], 720],
  [['mensalmente'], 720],
  [['todo', 'mes'], 720],
  [['uma', 'vez', 'no', 'mes'], 720],
];
const SINGLE: string[][] = [
  ['dose', 'unica'],
  ['aplicacao', 'unica'],
  ['unica', 'dose'],
  ['unica', 'aplicacao'],
  ['uma', 'unica', 'vez'],
  ['uma', 'unica', 'dose'],
  ['uma', 'unica', 'aplicacao'],
  ['so', 'uma', 'vez'],
  ['somente', 'uma', 'vez'],
  ['apenas', 'uma', 'vez'],
  ['uma', 'vez', 'so'],
];
const DAY_PARTS: Record<string, string> = { manha: 'morning', cedo: 'morning', tarde: 'afternoon', noite: 'night', almoco: 'noon' };
const DAY_PART_GLUE = new Set(['de', 'da', 'pela', 'pelo', 'na', 'no', 'a', 'e', 'outra', 'outro', 'ao']);

const startsWith = (words: string[], at: number, phrase: string[]) => phrase.every((word, i) => words[at + i] === word);

/** The number at `at`, where "meia" is a half even after "de"/"em" ("de meia em meia hora"). */
function amountAt(words: string[], at: number): { value: number; end: number } | null {
  const word = words[at];
  if (word === 'meio' || word === 'meia') return { value: 0.5, end: at + 1 };
  return readAmount(words, at);
}

/** A period unit after a number: "12 horas" → 12; "2 dias" → 48; "3 meses" → 2160. */
function periodAt(words: string[], at: number, amount: number): { hours: number; end: number } | null {
  const hours = PERIOD_HOURS[words[at] ?? ''];
  return hours === undefined ? null : { hours: amount * hours, end: at + 1 };
}

/** "de manhã e à noite" (12 h), "manhã, tarde e noite" (8 h); one part alone is weak (24 h). */
function dayPartsAt(words: string[], at: number): Interval | null {
  const parts = new Set<string>();
  let end = at;
  let k = at;
  for (let steps = 0; steps < 12 && k < words.length; steps++, k++) {
    const word = words[k]!;
    const part = DAY_PARTS[word];
    if (part !== undefined) {
      parts.add(part);
      end = k + 1;
    } else if (!DAY_PART_GLUE.has(word)) break;
  }
  if (parts.size === 0) return null;
  if (parts.size === 1) return { hours: 24, first: at, end, weak: true };
  return { hours: 24 / parts.size, first: at, end, weak: false };
}

/** The interval that starts at word `at`, or null. */
export function intervalAt(words: string[], at: number): Interval | null {
  const word = words[at];
  if (word === undefined) return null;
  const make = (end: number, hours: number | null): Interval => ({ hours, first: at, end, weak: false });

  if (word in LATIN) return make(at + 1, LATIN[word]!);
  for (const phrase of SINGLE) if (startsWith(words, at, phrase)) return make(at + phrase.length, null);
  for (const [phrase, hours] of EVERY) if (startsWith(words, at, phrase)) return make(at + phrase.length, hours);

  // "de 12 em 12 horas" / "de doze em doze horas" (hours when the unit is left out), "de 3 em 3 meses"
  if (word === 'de') {
    const first = amountAt(words, at + 1);
    if (first && words[first.end] === 'em') {
      const second = amountAt(words, first.end + 1);
      if (second && second.value === first.value && first.value > 0) {
        const period = periodAt(words, second.end, first.value);
        return period ? make(period.end, period.hours) : make(second.end, first.value);
      }
    }
    // "de 12/12 horas"
    const slashed = /^(\d+)\/(\d+)$/.exec(words[at + 1] ?? '');
    if (slashed && slashed[1] === slashed[2] && Number(slashed[1]) > 0) {
      const period = periodAt(words, at + 2, Number(slashed[1]));
      return period ? make(period.end, period.hours) : make(at + 2, Number(slashed[1]));
    }
  }
  // "a cada 12 horas", "cada doze horas", "a cada dois dias", "a cada hora", "a cada semana"
  const every = word === 'a' && words[at + 1] === 'cada' ? at + 2 : word === 'cada' ? at + 1 : -1;
  if (every >= 0) {
    const amount = amountAt(words, every);
    if (amount && amount.value > 0) {
      const period = periodAt(words, amount.end, amount.value);
      if (period) return make(period.end, period.hours);
    } else {
      const period = periodAt(words, every, 1);
      if (period) return make(period.end, period.hours);
    }
  }
  // "12/12 h", "12/12h", "8/8"
  const slash = /^(\d+)\/(\d+)$/.exec(word);
  if (slash && slash[1] === slash[2] && Number(slash[1]) > 0) {
    const period = periodAt(words, at + 1, Number(slash[1]));
    return period ? make(period.end, period.hours) : make(at + 1, Number(slash[1]));
  }
  // "q12h", "q 12 h", "q24"
  if (word === 'q' && /^\d+$/.test(words[at + 1] ?? '') && Number(words[at + 1]) > 0) {
    const hours = Number(words[at + 1]);
    return HOURS.has(words[at + 2] ?? '') ? make(at + 3, hours) : make(at + 2, hours);
  }
  // "duas vezes ao dia", "2x ao dia", "2x/dia", "uma vez por dia", "três vezes por semana"
  const times = readAmount(words, at);
  if (times && times.value > 0 && Number.isInteger(times.value)) {
    let next = times.end;
    if (['vez', 'vezes', 'x'].includes(words[next] ?? '')) {
      next++;
      if (words[next] === 'diarias' || words[next] === 'diariamente' || words[next] === 'diaria') return make(next + 1, 24 / times.value);
      if (['ao', 'por', 'no', 'a', 'na', '/', 'pelo'].includes(words[next] ?? '')) next++;
      const period = PERIOD_HOURS[words[next] ?? ''];
      if (period !== undefined && period >= 24 && !words[next]!.endsWith('s')) return make(next + 1, period / times.value);
    }
  }
  if (DAY_PARTS[word] !== undefined || ['de', 'pela', 'a', 'na'].includes(word)) return dayPartsAt(words, at);
  return null;
}

/** Every interval in the words, left to right, not overlapping. */
export function intervalsIn(words: string[]): Interval[] {
  const found: Interval[] = [];
  for (let at = 0; at < words.length; ) {
    const interval = intervalAt(words, at);
    if (interval) {
      found.push(interval);
      at = interval.end;
    } else at++;
  }
  return found;
}
