// Words, numbers and the few symbols vitals are written with ("<", "≤", "/", "%", "°C", "2''"),
// folded (lower case, no accents) for matching, each with its place in the original text so a vital
// can quote the words it was read from. Punctuation is dropped: speech-to-text punctuates at random.

import { fold } from '../../language/tokens.ts';

export interface Token {
  word: string;
  /** Where it is in the original text (folding keeps lengths). */
  start: number;
  end: number;
}

const TOKEN = /[<>]=?|[≤≥]|°(?:\s?c(?![a-z]))?|%|''|["″”]|\d+(?:[.,]\d+)*|[a-zµ]+|\//g;

export function tokenize(text: string): Token[] {
  return [...fold(text).matchAll(TOKEN)].map((match) => ({
    word: match[0].replace(/\s/g, '').replace(/[″”]/, '"'),
    start: match.index,
    end: match.index + match[0].length,
  }));
}
