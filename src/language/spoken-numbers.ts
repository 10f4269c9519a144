// Numbers as vets say and write them, read at one token: digits with a comma or a point ("39,8",
// "4.2"), words ("cento e oitenta"), a spoken comma ("quatro vírgula dois", "trinta e nove ponto
// cinco"), a half ("sete e meio"), and the spoken decimal without "vírgula" that temperatures and
// weights are said with: "trinta e nove e oito" is 39,8 °C, "doze e trezentos" is 12,300 kg. The
// word tables and the digits after a spoken comma are the drafting grounding's (one pt-BR number
// reader in the code base).

import { decimalDigits, digitValues, isDigits, wordInteger } from './numbers.ts';

export interface ReadNumber {
  value: number;
  /** Token after the number. */
  end: number;
}

/**
 * How "<integer> e <number>" continues: `decimal` digits (39 e 8 → 39.8, temperatures), `grams`
 * (12 e 300 → 12.3, weights in kg), or not at all (rates: "cento e vinte e FR ..." is 120).
 */
export type SpokenFraction = 'decimal' | 'grams' | null;

export function readNumber(words: string[], at: number, fraction: SpokenFraction = null): ReadNumber | null {
  const word = words[at];
  if (word === undefined) return null;
  let value: number;
  let end: number;
  const spoken = !isDigits(word);
  if (!spoken) {
    value = digitValues(word)[0]!;
    end = at + 1;
    if (!Number.isFinite(value)) return null;
  } else {
    const parsed = wordInteger(words, at);
    if (!parsed) return null;
    // A lone "um"/"uma" is an article as often as a number; the callers accept it after a cue only.
    ({ value, end } = parsed);
  }
  const after = words[end];
  if ((after === 'virgula' || after === 'ponto') && Number.isInteger(value)) {
    const decimals = decimalDigits(words, end + 1);
    if (decimals) return { value: Number(`${value}.${decimals.digits}`), end: decimals.end };
  }
  if (after === 'e' && (words[end + 1] === 'meio' || words[end + 1] === 'meia')) return { value: value + 0.5, end: end + 2 };
  if (after === 'e' && spoken && fraction !== null) {
    const part = wordInteger(words, end + 1);
    if (part && fraction === 'decimal' && part.value < 100) return { value: Number(`${value}.${part.value}`), end: part.end };
    if (part && fraction === 'grams' && part.value < 1000) return { value: value + part.value / 1000, end: part.end };
  }
  return { value, end };
}
