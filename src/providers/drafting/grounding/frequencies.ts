// Dosing frequencies, all read as "every N hours": "de doze em doze horas", "a cada 12 h",
// "12/12 h", "q12h", "duas vezes ao dia", "BID", "a cada dois dias" (48 h).

import { numberKey, quantityAt } from '../../../language/numbers.ts';
import type { Token } from '../../../language/tokens.ts';

export interface Frequency {
  first: number;
  end: number;
  /** "a cada 12 h" */
  canonical: string;
}

const LATIN: Record<string, number> = { sid: 24, bid: 12, tid: 8, qid: 6 };
const HOURS = new Set(['h', 'hr', 'hrs', 'hs', 'hora', 'horas']);
const DAYS = new Set(['dia', 'dias']);

export function everyHours(hours: number): string {
  return `a cada ${numberKey(hours).replace('.', ',')} h`;
}

/** The hours of a period unit after a number: "12 horas" → 12; "2 dias" → 48; none → null. */
function periodAt(tokens: Token[], at: number, amount: number): { hours: number; end: number } | null {
  const word = tokens[at]?.word;
  if (word !== undefined && HOURS.has(word)) return { hours: amount, end: at + 1 };
  if (word !== undefined && DAYS.has(word)) return { hours: amount * 24, end: at + 1 };
  return null;
}

/** A number, where "meia" is a half even after "de"/"em" ("de meia em meia hora"). */
function amountAt(tokens: Token[], at: number): { values: number[]; end: number } | null {
  const word = tokens[at]?.word;
  if (word === undefined) return null;
  if (word === 'meio' || word === 'meia') return { values: [0.5], end: at + 1 };
  return quantityAt(tokens, at);
}

function frequencyAt(tokens: Token[], at: number): Frequency | null {
  const word = tokens[at]!.word;
  const make = (end: number, hours: number): Frequency => ({ first: at, end, canonical: everyHours(hours) });

  if (word in LATIN) return make(at + 1, LATIN[word]!);
  // "de 12 em 12 horas" / "de doze em doze horas" (hours when the unit is left out)
  if (word === 'de') {
    const first = amountAt(tokens, at + 1);
    if (first && tokens[first.end]?.word === 'em') {
      const second = amountAt(tokens, first.end + 1);
      if (second && numberKey(second.values[0]!) === numberKey(first.values[0]!)) {
        const period = periodAt(tokens, second.end, first.values[0]!);
        return period ? make(period.end, period.hours) : make(second.end, first.values[0]!);
      }
    }
  }
  // "a cada 12 horas", "a cada dois dias"
  if (word === 'a' && tokens[at + 1]?.word === 'cada') {
    const amount = amountAt(tokens, at + 2);
    if (amount) {
      const period = periodAt(tokens, amount.end, amount.values[0]!);
      if (period) return make(period.end, period.hours);
    }
  }
  // "12/12 h", "12/12h"
  const slash = /^(\d+)\/(\d+)$/.exec(word);
  if (slash && slash[1] === slash[2]) {
    const period = periodAt(tokens, at + 1, Number(slash[1]));
    return period ? make(period.end, period.hours) : make(at + 1, Number(slash[1]));
  }
  // "q12h"
  if (word === 'q' && tokens[at + 1] && /^\d+$/.test(tokens[at + 1]!.word) && HOURS.has(tokens[at + 2]?.word ?? '')) {
    return make(at + 3, Number(tokens[at + 1]!.word));
  }
  // "duas vezes ao dia", "2x ao dia", "uma vez por dia"
  const times = quantityAt(tokens, at);
  if (times && times.values[0]! > 0) {
    let next = times.end;
    if (['vez', 'vezes', 'x'].includes(tokens[next]?.word ?? '')) {
      next++;
      if (['ao', 'por', 'no', 'a'].includes(tokens[next]?.word ?? '') && DAYS.has(tokens[next + 1]?.word ?? '')) {
        return make(next + 2, 24 / times.values[0]!);
      }
    }
  }
  return null;
}

/** Every frequency in the tokens, left to right, not overlapping. */
export function frequenciesIn(tokens: Token[]): Frequency[] {
  const found: Frequency[] = [];
  for (let at = 0; at < tokens.length; ) {
    const frequency = frequencyAt(tokens, at);
    if (frequency) {
      found.push(frequency);
      at = frequency.end;
    } else at++;
  }
  return found;
}
