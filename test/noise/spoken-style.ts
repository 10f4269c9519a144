// A noise model that turns the corpora's clean, punctuated consultations into text as a small
// Whisper model on CPU writes it, to measure the pipeline on both (docs/notes-speech-robustness.md).
// Deterministic: the same text and seed give the same output. What it changes, and how often:
//
// - units said in words, each occurrence with probability UNIT_WORDS (0.5): "mg/kg" → "miligramas
//   por quilo", "kg" → "quilos", "°C" → "graus", "bpm" → "batimentos por minuto", "%" → "por cento"…
// - numbers: an integer in words with probability NUMBER_WORDS (0.5) ("104" → "cento e quatro");
//   a decimal in words with the same probability ("38,5" → "trinta e oito vírgula cinco", or
//   "trinta e oito e meio" for half of the ",5"), else written with a point ("38.5") or a comma
//   ("38,5"), half and half
// - everything in lower case; the accents of a word dropped with probability NO_ACCENTS (0.2)
// - every punctuation mark removed (a number's own comma or point, and the "/" of "mg/kg" or
//   "12/12", stay)
// - a filler ("é", "né", "tá", "aí", "então", "tipo") before a word with probability FILLER (0.04)
// - a word said twice with probability REPEAT (0.03)
//   (neither inside a number said in words: "cento e quarenta" stays whole)
// - segments cut anywhere: every 6 to 30 words (uniform), whatever the sentences
// - with `misspellDrugs`, a drug name of the lexicon misheard with probability MISSPELL (default 0)
//   by one of: a letter dropped, a letter doubled, a sound-alike spelling (c/s, z/s, final m/n,
//   "ph"/"f"), or the name cut in two words (misheardSpelling)

import { builtInDrugs } from '../../src/notes/plan/lexicon/lexicon.ts';

export const UNIT_WORDS = 0.5;
export const NUMBER_WORDS = 0.5;
export const NO_ACCENTS = 0.2;
export const FILLER = 0.04;
export const REPEAT = 0.03;
const FILLERS = ['é', 'né', 'tá', 'aí', 'então', 'tipo'];

export interface NoiseOptions {
  seed: number;
  /** Probability that a lexicon drug name is misheard (0 = never). */
  misspellDrugs?: number;
}

/** mulberry32: a small seeded generator, the same sequence everywhere. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed from text (FNV-1a), so each consultation has its own sequence. */
export function seedOf(text: string, seed = 0): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

const UNITS = ['zero', 'um', 'dois', 'três', 'quatro', 'cinco', 'seis', 'sete', 'oito', 'nove'];
const TEENS = ['dez', 'onze', 'doze', 'treze', 'catorze', 'quinze', 'dezesseis', 'dezessete', 'dezoito', 'dezenove'];
const TENS = ['', '', 'vinte', 'trinta', 'quarenta', 'cinquenta', 'sessenta', 'setenta', 'oitenta', 'noventa'];
const HUNDREDS = [
  '',
  'cento',
  'duzentos',
  'trezentos',
  'quatrocentos',
  'quinhentos',
  'seiscentos',
  'setecentos',
  'oitocentos',
  'novecentos',
];

const NUMBER_WORDS_SET = new Set(
  [...UNITS, ...TEENS, ...TENS, ...HUNDREDS, 'cem', 'mil', 'e', 'virgula', 'meio', 'meia', 'uma', 'duas', 'duzentas', 'trezentas']
    .filter(Boolean)
    .map((word) => word.normalize('NFD').replace(/[\u0300-\u036f]/g, '')),
);

/** A whole number 0–999 999 in pt-BR words. */
export function numberWords(n: number): string {
  if (n < 10) return UNITS[n]!;
  if (n < 20) return TEENS[n - 10]!;
  if (n < 100) return TENS[Math.floor(n / 10)]! + (n % 10 ? ` e ${UNITS[n % 10]}` : '');
  if (n === 100) return 'cem';
  if (n < 1000) return HUNDREDS[Math.floor(n / 100)]! + (n % 100 ? ` e ${numberWords(n % 100)}` : '');
  const thousands = Math.floor(n / 1000);
  const rest = n % 1000;
  const head = thousands === 1 ? 'mil' : `${numberWords(thousands)} mil`;
  return rest === 0 ? head : `${head}${rest < 100 || rest % 100 === 0 ? ' e' : ''} ${numberWords(rest)}`;
}

function decimalWords(whole: string, fraction: string, rng: () => number): string {
  if (fraction === '5' && rng() < 0.5) return `${numberWords(Number(whole))} e meio`;
  // "0,25" → "zero vírgula vinte e cinco"; "2,05" → "dois vírgula zero cinco"
  const tail = fraction.startsWith('0') ? [...fraction].map((digit) => UNITS[Number(digit)]).join(' ') : numberWords(Number(fraction));
  return `${numberWords(Number(whole))} vírgula ${tail}`;
}

const UNIT_SPOKEN: [RegExp, string][] = [
  [/\bmg\/kg\b/g, 'miligramas por quilo'],
  [/\bmcg\/kg\b/g, 'microgramas por quilo'],
  [/\bml\/kg\b/gi, 'mililitros por quilo'],
  [/\bUI\/kg\b/g, 'unidades por quilo'],
  [/\bmg\b(?!\/)/g, 'miligramas'],
  [/(?<!\/)\bkg\b/g, 'quilos'],
  [/\bml\b(?!\/)/gi, 'mililitros'],
  [/\s?[°º]\s?C\b/g, ' graus'],
  [/\bbpm\b/g, 'batimentos por minuto'],
  [/\bmpm\b|\brpm\b/g, 'movimentos por minuto'],
  [/\s?%/g, ' por cento'],
];

/** Misheard spellings of a drug name (used with `misspellDrugs`): what the check must flag. */
export function misheardSpelling(name: string, rng: () => number): string {
  const options: (() => string | null)[] = [
    // a letter dropped (not the first)
    () => {
      const at = 1 + Math.floor(rng() * (name.length - 2));
      return /[a-z]/.test(name[at]!) ? name.slice(0, at) + name.slice(at + 1) : null;
    },
    // a letter doubled
    () => {
      const at = 1 + Math.floor(rng() * (name.length - 1));
      return /[a-z]/.test(name[at]!) ? name.slice(0, at) + name[at] + name.slice(at) : null;
    },
    // a sound-alike spelling
    () => {
      const swaps: [RegExp, string][] = [
        [/c(?=[ei])/, 's'],
        [/z/, 's'],
        [/s(?=[aeiou])/, 'z'],
        [/m$/, 'n'],
        [/ph/, 'f'],
        [/x/, 'ks'],
        [/qu/, 'k'],
      ];
      const usable = swaps.filter(([pattern]) => pattern.test(name));
      if (usable.length === 0) return null;
      const [pattern, by] = usable[Math.floor(rng() * usable.length)]!;
      return name.replace(pattern, by);
    },
    // cut in two words
    () => {
      if (name.length < 8) return null;
      const at = 3 + Math.floor(rng() * (name.length - 6));
      return `${name.slice(0, at)} ${name.slice(at)}`;
    },
  ];
  for (let tries = 0; tries < 8; tries++) {
    const spelled = options[Math.floor(rng() * options.length)]!();
    if (spelled && spelled !== name) return spelled;
  }
  return name;
}

let drugNames: Set<string> | null = null;
/** One-word generic names of the lexicon, 6 letters or more: the names the model may mishear. */
function misspellable(): Set<string> {
  drugNames ??= new Set(
    builtInDrugs()
      .filter(({ drug }) => drug.generic === drug.name && !drug.name.includes(' ') && drug.name.length >= 6)
      .map(({ drug }) => drug.name),
  );
  return drugNames;
}

const stripAccents = (word: string) =>
  word
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC');

export interface Misspelled {
  /** The lexicon name. */
  drug: string;
  /** As the noisy text writes it. */
  said: string;
}

/** One sentence as a small Whisper writes it; `misspelled` collects the drug names misheard. */
export function noisySentence(text: string, rng: () => number, options: NoiseOptions, misspelled: Misspelled[] = []): string {
  let out = text;
  // A number or unit said in words is one piece (no filler or repetition inside it): joined by
  // no-break spaces until the end.
  const piece = (words: string) => words.replace(/ /g, '\u00a0');
  for (const [pattern, spoken] of UNIT_SPOKEN) out = out.replace(pattern, (unit) => (rng() < UNIT_WORDS ? piece(spoken) : unit));
  out = out.replace(/\b(\d+)(?:[.,](\d+))?\b(?!\/)/g, (number, whole: string, fraction: string | undefined) => {
    if (whole.length > 6) return number;
    if (fraction === undefined) return rng() < NUMBER_WORDS ? piece(numberWords(Number(whole))) : number;
    const choice = rng();
    if (choice < NUMBER_WORDS) return piece(decimalWords(whole, fraction, rng));
    return choice < NUMBER_WORDS + (1 - NUMBER_WORDS) / 2 ? `${whole}.${fraction}` : `${whole},${fraction}`;
  });
  out = out.toLowerCase();
  // Punctuation away, but not the mark inside a number ("38,5") or the "/" of "mg/kg" and "12/12".
  out = out.replace(/[.,](?!\d)|(?<!\d)[.,]|[;:!?…"“”()«»—–]|-(?=[ \t\n])|(?<=[ \t\n])-/g, ' ');
  const words: string[] = [];
  for (const raw of out.split(/[ \t\n]+/).filter(Boolean)) {
    let word = raw;
    if (options.misspellDrugs && misspellable().has(stripAccents(word)) && rng() < options.misspellDrugs) {
      const said = misheardSpelling(stripAccents(word), rng);
      if (said !== stripAccents(word)) misspelled.push({ drug: stripAccents(word), said });
      word = said;
    }
    if (rng() < NO_ACCENTS) word = stripAccents(word);
    // Never inside a number said in words ("cento e quarenta"): a hesitation there is rare.
    const inNumber = NUMBER_WORDS_SET.has(stripAccents(word)) && NUMBER_WORDS_SET.has(stripAccents(words.at(-1) ?? ''));
    if (rng() < FILLER && !inNumber) words.push(FILLERS[Math.floor(rng() * FILLERS.length)]!);
    words.push(word);
    if (rng() < REPEAT && !NUMBER_WORDS_SET.has(stripAccents(word))) words.push(word);
  }
  return words.join(' ').replace(/\u00a0/g, ' ');
}

/** Segments cut anywhere: every 6 to 30 words of the text, whatever its sentences. */
export function cutAnywhere(text: string, rng: () => number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const segments: string[] = [];
  for (let at = 0; at < words.length; ) {
    const take = 6 + Math.floor(rng() * 25);
    segments.push(words.slice(at, at + take).join(' '));
    at += take;
  }
  return segments;
}

/** Timed segments cut anywhere over [start, end] of the audio, times spread by words. */
export function timedSegmentsOf(text: string, start: number, end: number, rng: () => number) {
  const pieces = cutAnywhere(text, rng);
  const total = pieces.reduce((sum, piece) => sum + piece.split(' ').length, 0) || 1;
  let at = start;
  return pieces.map((piece) => {
    const length = ((end - start) * piece.split(' ').length) / total;
    const segment = { start: Number(at.toFixed(2)), end: Number((at + length).toFixed(2)), text: piece };
    at += length;
    return segment;
  });
}
