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

/**
 * Fillers a speech-to-text model keeps ("né", "tipo", "aí", "então": folded), read past as
 * punctuation is; and a word said twice in a row is read once ("38 38 quilos"), so "temperatura
 * tipo trinta e nove" is read as "temperatura trinta e nove".
 */
const FILLERS = new Set(['ne', 'tipo', 'ai', 'entao']);

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of fold(text).matchAll(TOKEN)) {
    const word = match[0].replace(/\s/g, '').replace(/[″”]/, '"');
    if (FILLERS.has(word) || (word === tokens.at(-1)?.word && /^[a-z\d]/.test(word))) continue;
    tokens.push({ word, start: match.index, end: match.index + match[0].length });
  }
  return tokens;
}
