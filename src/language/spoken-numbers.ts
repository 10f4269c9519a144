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

/** "meio"/"meia" is a half, except in "por meio de", "no meio", "ao meio" (numbers.ts agrees). */
const NOT_HALF_AFTER = new Set(['por', 'no', 'ao', 'do', 'pelo', 'em']);
const VULGAR: Record<string, number> = { '½': 0.5, '¼': 0.25, '¾': 0.75 };
/** "um quarto" = 1/4, "três quartos", "um terço". */
const PARTS: Record<string, number> = { quarto: 4, quartos: 4, terco: 3, tercos: 3 };

/**
 * An amount as a dose or a count is said: every `readNumber` form (no spoken decimal without
 * "vírgula": "dez e cinco" is not 10,5), plus the fractions of a tablet — "meio", "meia", "½",
 * "1/2", "um quarto", "três quartos", "um terço" — and "um e meio" (readNumber). Looks at no more
 * than a few words past `at`.
 */
export function readAmount(words: string[], at: number): ReadNumber | null {
  const word = words[at];
  if (word === undefined) return null;
  if (word in VULGAR) return { value: VULGAR[word]!, end: at + 1 };
  if ((word === 'meio' || word === 'meia') && !NOT_HALF_AFTER.has(words[at - 1] ?? '')) return { value: 0.5, end: at + 1 };
  const fraction = /^(\d+)\/(\d+)$/.exec(word);
  if (fraction) {
    const [top, bottom] = [Number(fraction[1]), Number(fraction[2])];
    // "12/12" is a schedule ("12/12 h"), not a number; the schedule reader takes it.
    if (top === bottom || bottom === 0) return null;
    return { value: top / bottom, end: at + 1 };
  }
  const number = readNumber(words, at);
  if (!number) return null;
  const after = words[number.end];
  if (after !== undefined && after in PARTS && !isDigits(word) && number.value < PARTS[after]!) {
    return { value: number.value / PARTS[after]!, end: number.end + 1 };
  }
  return number;
}
