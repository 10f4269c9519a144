// Dosing frequencies, all read as "every N hours" by the one pt-BR interval reader
// (language/intervals.ts): "de doze em doze horas", "a cada 12 h", "12/12 h", "q12h", "duas vezes
// ao dia", "BID", "a cada dois dias" (48 h). A single dose and a lone part of the day are no
// frequency to ground.

import { intervalsIn } from '../../../language/intervals.ts';
import { numberKey } from '../../../language/numbers.ts';
import type { Token } from '../../../language/tokens.ts';

export interface Frequency {
  first: number;
  end: number;
  /** "a cada 12 h" */
  canonical: string;
}

export function everyHours(hours: number): string {
  return `a cada ${numberKey(hours).replace('.', ',')} h`;
}

/** Every frequency in the tokens, left to right, not overlapping. */
export function frequenciesIn(tokens: Token[]): Frequency[] {
  return intervalsIn(tokens.map((token) => token.word)).flatMap((interval) =>
    interval.hours === null || interval.weak ? [] : [{ first: interval.first, end: interval.end, canonical: everyHours(interval.hours) }],
  );
}
