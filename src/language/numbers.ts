// pt-BR numbers as said or written, read into values: "39,4", "1.000", "1/2", "½", "trinta e nove
// vírgula quatro", "trinta e nove e quatro" (a temperature as spoken), "meio", "um e meio",
// "vinte e cinco centésimos", "três quartos", "mil e duzentos". A phrase may have several readings
// ("trinta e nove e quatro" is 39,4 or 39 and 4); all of them are kept, and a drafted number is
// grounded when any reading of it was said.

import type { Token } from './tokens.ts';

export interface Quantity {
  /** Token range [first, end). */
  first: number;
  end: number;
  /** Every plausible reading; the first is the likeliest. */
  values: number[];
  /** A bare "um"/"uma": an article as often as a number. */
  weak: boolean;
}

// biome-ignore format: a table reads better packed
const SMALL: Record<string, number> = {
  zero: 0, um: 1, uma: 1, dois: 2, duas: 2, tres: 3, quatro: 4, cinco: 5, seis: 6, sete: 7, oito: 8, nove: 9,
  dez: 10, onze: 11, doze: 12, treze: 13, catorze: 14, quatorze: 14, quinze: 15, dezesseis: 16, dezasseis: 16,
  dezessete: 17, dezassete: 17, dezoito: 18, dezenove: 19, dezanove: 19,
};
// biome-ignore format: a table reads better packed
const TENS: Record<string, number> = {
  vinte: 20, trinta: 30, quarenta: 40, cinquenta: 50, sessenta: 60, setenta: 70, oitenta: 80, noventa: 90,
};
// biome-ignore format: a table reads better packed
const HUNDREDS: Record<string, number> = {
  cem: 100, cento: 100, duzentos: 200, duzentas: 200, trezentos: 300, trezentas: 300, quatrocentos: 400,
  quatrocentas: 400, quinhentos: 500, quinhentas: 500, seiscentos: 600, seiscentas: 600, setecentos: 700,
  setecentas: 700, oitocentos: 800, oitocentas: 800, novecentos: 900, novecentas: 900,
};
/** "vinte e cinco centésimos" = 25/100; "três quartos" = 3/4. */
// biome-ignore format: a table reads better packed
const DENOMINATORS: Record<string, number> = {
  decimo: 10, decimos: 10, centesimo: 100, centesimos: 100, milesimo: 1000, milesimos: 1000,
  quarto: 4, quartos: 4, terco: 3, tercos: 3,
};
const VULGAR: Record<string, number> = { '½': 0.5, '¼': 0.25, '¾': 0.75 };
/** "meio" is also "por meio de", "no meio": not a half after these. */
const NOT_HALF_AFTER = new Set(['por', 'no', 'ao', 'do', 'pelo', 'em', 'de']);

function magnitude(word: string | undefined): { value: number; rank: number } | null {
  if (word === undefined) return null;
  if (word in HUNDREDS) return { value: HUNDREDS[word]!, rank: 3 };
  if (word in TENS) return { value: TENS[word]!, rank: 2 };
  if (word in SMALL) return { value: SMALL[word]!, rank: 1 };
  return null;
}

/** A number below a thousand in words, parts joined by "e" ("cento e quarenta e dois"). */
function belowThousand(words: string[], at: number): { value: number; end: number } | null {
  let value = 0;
  let end = at;
  let rank = 4;
  for (;;) {
    let next = end;
    if (end > at) {
      if (words[next] !== 'e') break;
      next++;
    }
    const part = magnitude(words[next]);
    if (!part || part.rank >= rank) break;
    // After a ten only a unit may follow: "vinte e cinco", never "vinte e doze".
    if (rank === 2 && part.value >= 10) break;
    value += part.value;
    rank = part.rank;
    end = next + 1;
    if (words[end - 1] === 'cem') break; // "cem" takes nothing after it ("cento e ..." does)
  }
  return end > at ? { value, end } : null;
}

/** An integer in words, up to the thousands ("dois mil e quinhentos", "mil duzentos"). */
export function wordInteger(words: string[], at: number): { value: number; end: number } | null {
  const head = belowThousand(words, at);
  let value: number;
  let end: number;
  if (head && words[head.end] === 'mil') {
    value = head.value * 1000;
    end = head.end + 1;
  } else if (!head && words[at] === 'mil') {
    value = 1000;
    end = at + 1;
  } else return head;
  const tail = words[end] === 'e' ? belowThousand(words, end + 1) : belowThousand(words, end);
  if (tail) return { value: value + tail.value, end: tail.end };
  return { value, end };
}

/** "39,4" → [39.4]; "1.000" → [1000, 1]; "1.000,5" → [1000.5]; "1/2" → [0.5, 1, 2]; "12/12" → [12]. */
export function digitValues(text: string): number[] {
  if (text.includes('/')) {
    const [top, bottom] = text.split('/').map((part) => digitValues(part)[0] ?? Number.NaN) as [number, number];
    if (top === bottom) return [top];
    return bottom === 0 ? [top] : [top / bottom, top, bottom];
  }
  if (text.includes(',') && text.includes('.')) return [Number(text.replace(/\./g, '').replace(',', '.'))];
  if (text.includes(',')) return [Number(text.replace(',', '.'))];
  // "1.000" is a thousand in pt-BR, but a model writing English style means one.
  if (/^\d{1,3}(\.\d{3})+$/.test(text)) return [Number(text.replace(/\./g, '')), Number(text)];
  return [Number(text)];
}

export const isDigits = (word: string | undefined) => word !== undefined && /^\d/.test(word);

/** The decimal digits after "vírgula": "quatro" → "4", "vinte e cinco" → "25", "zero cinco" → "05". */
export function decimalDigits(words: string[], at: number): { digits: string; end: number } | null {
  if (isDigits(words[at]) && /^\d+$/.test(words[at]!)) return { digits: words[at]!, end: at + 1 };
  let digits = '';
  let end = at;
  while (words[end] === 'zero') {
    digits += '0';
    end++;
  }
  const rest = wordInteger(words, end);
  if (rest) return { digits: digits + String(rest.value), end: rest.end };
  return digits ? { digits, end } : null;
}

/** The number starting at token `at`, with every reading, or null when none starts there. */
export function quantityAt(tokens: Token[], at: number): Quantity | null {
  const words = tokens.map((token) => token.word);
  const word = words[at]!;
  if (word in VULGAR) return { first: at, end: at + 1, values: [VULGAR[word]!], weak: false };
  if ((word === 'meio' || word === 'meia') && !NOT_HALF_AFTER.has(words[at - 1] ?? '')) {
    return { first: at, end: at + 1, values: [0.5], weak: false };
  }

  let integer: { value: number; end: number; readings: number[] } | null = null;
  if (isDigits(word)) {
    const readings = digitValues(word);
    integer = { value: readings[0]!, end: at + 1, readings };
  } else {
    const parsed = wordInteger(words, at);
    if (parsed) integer = { ...parsed, readings: [parsed.value] };
  }
  if (!integer) return null;
  const { value, end } = integer;
  const after = words[end];

  if ((after === 'virgula' || after === 'ponto') && end + 1 < words.length) {
    const decimals = decimalDigits(words, end + 1);
    if (decimals) return { first: at, end: decimals.end, values: [Number(`${value}.${decimals.digits}`)], weak: false };
  }
  if (after === 'e' && (words[end + 1] === 'meio' || words[end + 1] === 'meia')) {
    return { first: at, end: end + 2, values: [value + 0.5], weak: false };
  }
  if (after !== undefined && after in DENOMINATORS && !isDigits(word)) {
    return { first: at, end: end + 1, values: [value / DENOMINATORS[after]!], weak: false };
  }
  // "trinta e nove e quatro": spoken temperatures and weights drop the "vírgula".
  if (after === 'e' && !isDigits(word)) {
    const fraction = wordInteger(words, end + 1);
    if (fraction && fraction.value < 100 && value >= 1) {
      return { first: at, end: fraction.end, values: [Number(`${value}.${fraction.value}`), value, fraction.value], weak: false };
    }
  }
  const weak = end === at + 1 && (word === 'um' || word === 'uma');
  return { first: at, end, values: integer.readings, weak };
}

/** Rounded for comparison, so 1/3 said and 0,333 written agree. */
export function numberKey(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
