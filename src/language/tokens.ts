// Words and numbers of a pt-BR sentence, folded (lower case, no accents) for matching but kept
// with their place in the original text so a flag can quote what the model actually wrote.

import { fold as foldSentence } from './fold.ts';

export interface Token {
  /** Folded: "Diagnóstico" → "diagnostico", "ºC" → "°c". */
  word: string;
  /** Where it is in the original text. */
  start: number;
  end: number;
}

/** The sectioner's folding (lower case, no accents, same length), with "º" read as "°". */
export function fold(text: string): string {
  return foldSentence(text).replace(/º/g, '°');
}

// Decimal numbers with either separator, fractions ("1/2", "12/12"), the vulgar fractions, degrees
// Celsius and per cent, or a run of letters. Units glued to digits ("10mg") split naturally.
const TOKEN = /[°]\s?c(?![a-z])|[½¼¾%]|\d+(?:[.,]\d+)*(?:\/\d+)?|[a-zµ]+/g;

export function tokenize(text: string): Token[] {
  const folded = fold(text);
  return [...folded.matchAll(TOKEN)].map((match) => ({
    word: match[0].replace(/\s/g, ''),
    start: match.index,
    end: match.index + match[0].length,
  }));
}
