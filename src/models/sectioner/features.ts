// What the sentence classifier sees of a sentence: Portuguese word stems (Snowball) and stem
// pairs of the folded text, how it opens, the hand-written cue patterns (as features whose weight
// is learned, not fixed), its shape (numbers, question, length) and where it sits in the
// consultation. Stems and folding make "vomitando", "vômito" and ASR's "vomito" one feature.

import { createRequire } from 'node:module';
import type snowballStemmers from 'snowball-stemmers';
import { SECTION_LABELS } from '../../language/sections.ts';
import { CUES } from './vocabulary.ts';

// Loaded on the first word stemmed, not at import: one 850 kB file of every language's stemmer
// (~3 MB of heap) that a process which never sections need not hold (docs/benchmarks.md, idle memory).
let stemmer: ReturnType<typeof snowballStemmers.newStemmer> | undefined;
const stemCache = new Map<string, string>();

export function stem(word: string): string {
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    stemmer ??= (createRequire(import.meta.url)('snowball-stemmers') as typeof snowballStemmers).newStemmer('portuguese');
    stemmed = stemmer.stem(word);
    if (stemCache.size < 50_000) stemCache.set(word, stemmed);
  }
  return stemmed;
}

// Spoken numbers are as telling as digits ("trinta e nove e quatro", "meio comprimido").
const NUMBER_WORDS = new Set(
  (
    'zero um uma dois duas tres quatro cinco seis sete oito nove dez onze doze treze catorze quatorze quinze ' +
    'dezesseis dezessete dezoito dezenove vinte trinta quarenta cinquenta sessenta setenta oitenta noventa cem ' +
    'cento duzentos trezentos quatrocentos quinhentos mil meio meia virgula'
  ).split(' '),
);

/** The words of a folded sentence, digits kept as one token each. */
function words(folded: string): string[] {
  return folded.match(/[a-z]+|\d+/g) ?? [];
}

function tokens(folded: string): string[] {
  return words(folded).map((word) => (/^\d/.test(word) ? '#' : NUMBER_WORDS.has(word) ? '#w' : stem(word)));
}

const CUE_ENTRIES = SECTION_LABELS.flatMap((label) => CUES[label].map(([pattern], index) => ({ name: `c:${label}${index}`, pattern })));

/** Features of one sentence on its own (no context). */
function ownFeatures(folded: string): string[] {
  const stems = tokens(folded);
  const features = new Set<string>(['bias']);
  for (const [i, token] of stems.entries()) {
    features.add(`w:${token}`);
    if (i > 0) features.add(`b:${stems[i - 1]}_${token}`);
  }
  features.add(`o:${stems[0] ?? ''}`);
  features.add(`o2:${stems[0] ?? ''}_${stems[1] ?? ''}`);
  for (const { name, pattern } of CUE_ENTRIES) if (pattern.test(folded)) features.add(name);
  const trimmed = folded.trimEnd();
  if (trimmed.endsWith('?')) features.add('s:question');
  if (/\d/.test(folded)) features.add('s:digits');
  features.add(`s:len${Math.min(4, Math.floor(Math.log2(stems.length + 1)))}`);
  return [...features];
}

/** Where a sentence sits: first, last, and which fifth of the consultation. */
function positionFeatures(index: number, count: number): string[] {
  const features = [`p:fifth${Math.min(4, Math.floor((index / Math.max(1, count)) * 5))}`];
  if (index === 0) features.push('p:first');
  if (index === count - 1) features.push('p:last');
  return features;
}

/**
 * Who said a sentence, when the transcript says: a role ("Tutor:", "Vet:") or only a diarizing
 * server's label ("A:"), from which a change of speaker is still telling.
 */
export interface Speaker {
  label: string;
  role: 'tutor' | 'vet' | null;
}

/**
 * A sentence's features in its consultation: its own, its position and its speaker. (Its neighbours'
 * words were tried as features and lost 1 point in cross-validation: the decoder already weighs the
 * neighbours.)
 */
export function sentenceFeatures(folded: string[], index: number, speakers: (Speaker | null)[] = []): string[] {
  const own = ownFeatures(folded[index]!);
  const speaker = speakers[index];
  if (speaker) {
    if (speaker.role) own.push(`sp:${speaker.role}`);
    const before = speakers[index - 1];
    if (before) own.push(before.label === speaker.label ? 'sp:same' : 'sp:change');
  }
  return [...own, ...positionFeatures(index, folded.length)];
}
