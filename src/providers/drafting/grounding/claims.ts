// What a drafted sentence asserts that must have been said (numbers, units, frequencies, drugs,
// sides), and everything a stretch of transcript did say, both in the same normalised keys.

import { numberKey, quantityAt } from '../../../language/numbers.ts';
import { type Token, tokenize } from '../../../language/tokens.ts';
import { frequenciesIn } from './frequencies.ts';
import { isDrug, sideOf, stem } from './lexicon.ts';
import { impliedUnit, isSymbolUnit, unitOf } from './units.ts';

export type ClaimKind = 'number' | 'unit' | 'frequency' | 'drug' | 'side';

export interface Claim {
  kind: ClaimKind;
  /** Grounded when any of these was said. */
  keys: string[];
  /** The words as the sentence wrote them ("0,25 mg/kg" gives "0,25", "mg", "kg"). */
  token: string;
}

export interface Said {
  number: Set<string>;
  unit: Set<string>;
  frequency: Set<string>;
  drug: Set<string>;
  side: Set<string>;
}

const isPerCent = (tokens: Token[], at: number) => tokens[at]?.word === 'por' && tokens[at + 1]?.word === 'cento';

/** The unit right after a number, past a "de" ("0,25 de miligrama", "meio comprimido"). */
function unitAfter(tokens: Token[], at: number): string | null {
  const next = tokens[at]?.word === 'de' ? at + 1 : at;
  const word = tokens[next]?.word;
  return word === undefined ? null : unitOf(word);
}

export function claimsOf(sentence: string): Claim[] {
  const tokens = tokenize(sentence);
  const surface = (first: number, end: number) => sentence.slice(tokens[first]!.start, tokens[end - 1]!.end);
  const found: { start: number; claim: Claim }[] = [];
  const add = (claim: Claim, first: number) => found.push({ start: tokens[first]!.start, claim });
  const consumed = new Array<boolean>(tokens.length).fill(false);
  const consume = (first: number, end: number) => consumed.fill(true, first, end);

  // Frequencies first: the numbers inside "a cada 12 h" are checked as a frequency, so "duas vezes
  // ao dia" said grounds "a cada 12 h" written.
  for (const frequency of frequenciesIn(tokens)) {
    add({ kind: 'frequency', keys: [frequency.canonical], token: surface(frequency.first, frequency.end) }, frequency.first);
    consume(frequency.first, frequency.end);
  }

  let lastNumberEnd = -1;
  for (let at = 0; at < tokens.length; ) {
    if (consumed[at]) {
      at++;
      continue;
    }
    const word = tokens[at]!.word;
    if (isPerCent(tokens, at)) {
      add({ kind: 'unit', keys: ['%'], token: surface(at, at + 2) }, at);
      at += 2;
      continue;
    }
    const quantity = quantityAt(tokens, at);
    if (quantity && !consumed.slice(quantity.first, quantity.end).includes(true)) {
      // A bare "um"/"uma" is an article unless a unit follows ("uma lesão" is not a number).
      if (!quantity.weak || unitAfter(tokens, quantity.end)) {
        add({ kind: 'number', keys: quantity.values.map(numberKey), token: surface(quantity.first, quantity.end) }, at);
        lastNumberEnd = quantity.end;
      }
      at = quantity.end;
      continue;
    }
    const unit = unitOf(word);
    const previous = tokens[at - 1]?.word;
    const afterNumber = lastNumberEnd === at || (previous === 'de' && lastNumberEnd === at - 1) || previous === 'por';
    if (unit && (isSymbolUnit(word) || afterNumber)) add({ kind: 'unit', keys: [unit], token: surface(at, at + 1) }, at);
    else if (isDrug(word)) add({ kind: 'drug', keys: [stem(word)], token: surface(at, at + 1) }, at);
    else {
      const side = sideOf(word);
      if (side) add({ kind: 'side', keys: [side], token: surface(at, at + 1) }, at);
    }
    at++;
  }
  // In the order the sentence states them, so a flag list reads like the sentence.
  return found.sort((a, b) => a.start - b.start).map(({ claim }) => claim);
}

/** Everything the text says, read generously: every reading of every number, every unit word. */
export function whatWasSaid(text: string): Said {
  const tokens = tokenize(text);
  const said: Said = { number: new Set(), unit: new Set(), frequency: new Set(), drug: new Set(), side: new Set() };
  for (const frequency of frequenciesIn(tokens)) said.frequency.add(frequency.canonical);
  for (const [at, token] of tokens.entries()) {
    const quantity = quantityAt(tokens, at);
    if (quantity) {
      for (const value of quantity.values) said.number.add(numberKey(value));
      // "doze quilos e meio" is 12,5 kg.
      const unitAt = tokens[quantity.end]?.word === 'de' ? quantity.end + 1 : quantity.end;
      const half = tokens[unitAt + 2]?.word;
      if (unitAfter(tokens, quantity.end) && tokens[unitAt + 1]?.word === 'e' && (half === 'meio' || half === 'meia')) {
        said.number.add(numberKey(quantity.values[0]! + 0.5));
      }
    }
    if (isPerCent(tokens, at)) said.unit.add('%');
    const unit = unitOf(token.word) ?? impliedUnit(token.word);
    if (unit) said.unit.add(unit);
    said.drug.add(stem(token.word));
    const side = sideOf(token.word);
    if (side) said.side.add(side);
  }
  return said;
}

export function isSaid(claim: Claim, said: Said): boolean {
  return claim.keys.some((key) => said[claim.kind].has(key));
}
