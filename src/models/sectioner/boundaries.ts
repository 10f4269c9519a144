// Where a new sentence starts inside a run that punctuation did not break: speech-to-text output
// often comes lower-case and unpunctuated ("oi doutora ele tá vomitando desde ontem vamos
// examinar"). A small logistic model over the words either side of each gap, learned from the
// corpus's sentence boundaries, proposes the cuts; every character still lands in one sentence.

import { LONG_RUN_WORDS, type SentenceSpan } from '../../language/sentences.ts';
import { stem } from './features.ts';

export interface BoundaryModel {
  /** feature → weight of "a sentence starts here". */
  weights: Record<string, number>;
  /** Cut where the probability exceeds this. */
  threshold: number;
}

export interface RunWord {
  start: number;
  end: number;
  /** Folded word without surrounding punctuation ("" for a token that is only punctuation). */
  word: string;
}

/** The whitespace-separated words of `folded` between start and end, with their offsets. */
export function runWords(folded: string, start: number, end: number): RunWord[] {
  const words: RunWord[] = [];
  for (const match of folded.slice(start, end).matchAll(/\S+/g)) {
    const at = start + match.index;
    words.push({ start: at, end: at + match[0].length, word: match[0].replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '') });
  }
  return words;
}

// Only "just after a cut" is told: a feature for long stretches without a cut would make the model
// cut anywhere once it has missed the right place.
function distanceBucket(wordsSinceCut: number): string {
  return wordsSinceCut <= 3 ? String(wordsSinceCut) : 'far';
}

/** Features of the gap before words[i] (i ≥ 1) in a run, `wordsSinceCut` words after the last cut. */
export function gapFeatures(words: RunWord[], i: number, wordsSinceCut: number, original: string): string[] {
  const at = (k: number) => words[k]?.word ?? '';
  const left = at(i - 1);
  const right = at(i);
  const features = [
    'bias',
    `l:${left}`,
    `r:${right}`,
    `lr:${left}_${right}`,
    `r2:${right}_${at(i + 1)}`,
    `l2:${at(i - 2)}_${left}`,
    `ls:${stem(left)}`,
    `rs:${stem(right)}`,
    `lrs:${stem(left)}_${stem(right)}`,
    `r3:${right}_${at(i + 1)}_${at(i + 2)}`,
    `d:${distanceBucket(wordsSinceCut)}`,
  ];
  const rawLeft = original.slice(words[i - 1]!.start, words[i - 1]!.end);
  if (/,$/.test(rawLeft)) features.push('comma');
  if (/^\p{Lu}/u.test(original.slice(words[i]!.start, words[i]!.end))) features.push('capital');
  return features;
}

function cutProbability(model: BoundaryModel, features: string[]): number {
  let score = 0;
  for (const feature of features) score += model.weights[feature] ?? 0;
  return 1 / (1 + Math.exp(-score));
}

// Shorter pieces are rarely sentences of their own and would scatter a sentence over sections.
const MIN_WORDS = 3;

export interface RunSpan extends SentenceSpan {
  /** Whether this sentence starts at a cut inside a run (the model's guess or a segment start), not at punctuation, a break or a heading. */
  guessedStart: boolean;
  /** Whether a segment of the speech-to-text server starts here. */
  segmentStart: boolean;
  /** The boundary model's chance that a sentence starts here, for a guessed start (1 at a segment start, where it is not asked). */
  startChance: number;
}

/**
 * Where the speech-to-text server's segments start in `text` (it pauses there, so a sentence
 * often starts there too). Segments whose text cannot be found in order are skipped.
 */
export function segmentStarts(text: string, segments: readonly { text: string }[]): Set<number> {
  const starts = new Set<number>();
  let from = 0;
  for (const segment of segments) {
    const needle = segment.text.trim();
    if (needle === '') continue;
    const at = text.indexOf(needle, from);
    if (at < 0) continue;
    starts.add(at);
    from = at + needle.length;
  }
  return starts;
}

// Where punctuation marks the sentences (whisper-like servers; the corpus's punctuated transcripts
// average 5-19 words per sentence, its run-ons 37 and more), a long sentence is one sentence: a
// guessed cut there can only split it over two sections.
const PUNCTUATED_WORDS_PER_SENTENCE = 25;

function isPunctuated(wordsPerSpan: RunWord[][]): boolean {
  const words = wordsPerSpan.reduce((count, spanWords) => count + spanWords.length, 0);
  return words < PUNCTUATED_WORDS_PER_SENTENCE * wordsPerSpan.length;
}

/**
 * Splits each span further where the model sees a sentence start (a probability above its
 * threshold), or where a segment of the speech-to-text server starts.
 */
export function splitRuns(
  spans: SentenceSpan[],
  text: string,
  folded: string,
  model: BoundaryModel,
  segments: ReadonlySet<number> = new Set(),
): RunSpan[] {
  const result: RunSpan[] = [];
  const wordsPerSpan = spans.map((span) => runWords(folded, span.start, span.end));
  const punctuated = isPunctuated(wordsPerSpan);
  // Segments start where the server paused, which is not always between sentences: where
  // punctuation marks the sentences, it is the better witness and segments cut nothing.
  const segmentCuts: ReadonlySet<number> = punctuated ? new Set() : segments;
  for (const [spanIndex, span] of spans.entries()) {
    const words = wordsPerSpan[spanIndex]!;
    // A sentence of ordinary length came out of punctuation as it is: only long runs of a
    // transcript that punctuation does not already cut into sentences are guessed at.
    const guessing = words.length >= LONG_RUN_WORDS && !punctuated;
    let pieceStart = span.start;
    let chance = 1;
    const endPiece = (end: number) =>
      result.push({
        start: pieceStart,
        end,
        text: text.slice(pieceStart, end),
        afterLineBreak: pieceStart === span.start && span.afterLineBreak,
        guessedStart: pieceStart !== span.start,
        segmentStart: segmentCuts.has(pieceStart),
        startChance: pieceStart === span.start ? 1 : chance,
      });
    let cutAt = 0;
    for (let i = 1; i < words.length; i++) {
      let probability = 1;
      if (!segmentCuts.has(words[i]!.start)) {
        const tooShort = i - cutAt < MIN_WORDS || words.length - i < MIN_WORDS;
        if (!guessing || tooShort) continue;
        probability = cutProbability(model, gapFeatures(words, i, i - cutAt, text));
        if (probability <= model.threshold) continue;
      }
      endPiece(words[i - 1]!.end);
      chance = probability;
      pieceStart = words[i]!.start;
      cutAt = i;
    }
    endPiece(span.end);
  }
  return result;
}

// A change of section at a guessed cut is as likely as the cut is: the sequence model learns a
// cost per band of the boundary model's chance (and one for segment starts).
const CHANCE_BANDS = [0.05, 0.15, 0.4];
export const CUT_BANDS = CHANCE_BANDS.length + 2;

/** The band of a sentence's start for the change cost: -1 when it does not start at a guessed cut. */
export function cutBand(span: RunSpan): number {
  if (!span.guessedStart) return -1;
  if (span.segmentStart) return 0;
  const band = CHANCE_BANDS.findIndex((limit) => span.startChance < limit);
  return 1 + (band < 0 ? CHANCE_BANDS.length : band);
}
