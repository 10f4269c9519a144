// Loads the labelled corpus and scores a sentence labeller against it. A labelled sentence counts
// as right when most of its characters fall in sentences given its label, so the score does not
// depend on the splitter cutting exactly where the corpus does (unpunctuated ASR text).

import { readdirSync, readFileSync } from 'node:fs';
import { splitSentences } from '../../../src/language/sentences.ts';
import { type LabelledTranscript, majorityLabel } from '../../../src/models/sectioner/training/training.ts';
import type { SectionLabel } from '../../../src/providers/sectioning/port.ts';

export interface CorpusTranscript {
  id: string;
  style: 'headings' | 'plain' | 'dialogue';
  species: string;
  joiner?: string;
  sentences: [SectionLabel, string][];
}

function readTranscripts(url: URL): CorpusTranscript[] {
  return (JSON.parse(readFileSync(url, 'utf8')) as { transcripts: CorpusTranscript[] }).transcripts;
}

/** Every transcript of the corpus: the two first files and every batch under batches/. */
export function loadWholeCorpus(): CorpusTranscript[] {
  const batches = new URL('./batches/', import.meta.url);
  const files = readdirSync(batches)
    .filter((name) => name.endsWith('.json'))
    .sort();
  return [
    ...readTranscripts(new URL('./tuning.json', import.meta.url)),
    ...readTranscripts(new URL('./held-out.json', import.meta.url)),
    ...files.flatMap((name) => readTranscripts(new URL(name, batches))),
  ];
}

/**
 * A transcript is held out when its id says so: the whole of held-out.json, and a quarter of every
 * batch chosen by a hash of the id (so adding transcripts never moves old ones between parts).
 */
export function isHeldOut(transcript: CorpusTranscript, heldOutIds: ReadonlySet<string>): boolean {
  return heldOutIds.has(transcript.id) || (!/^h-|^t-/.test(transcript.id) && fnv1a(transcript.id) % 4 === 0);
}

export function loadCorpus(name: 'tuning' | 'held-out'): CorpusTranscript[] {
  const heldOutIds = new Set(readTranscripts(new URL('./held-out.json', import.meta.url)).map((t) => t.id));
  return loadWholeCorpus().filter((transcript) => isHeldOut(transcript, heldOutIds) === (name === 'held-out'));
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** A transcript as training data: its text and the character span of every labelled sentence. */
export function labelledTranscript(transcript: CorpusTranscript): LabelledTranscript {
  return { text: transcriptText(transcript), units: labelledSpans(transcript) };
}

function labelledSpans(transcript: CorpusTranscript): LabelledSpan[] {
  const joiner = transcript.joiner ?? ' ';
  let offset = 0;
  return transcript.sentences.map(([label, text]) => {
    const span = { start: offset, end: offset + text.length, label };
    offset = span.end + joiner.length;
    return span;
  });
}

export function transcriptText(transcript: CorpusTranscript): string {
  return transcript.sentences.map(([, text]) => text).join(transcript.joiner ?? ' ');
}

/** Whether punctuation marks most of its sentences (as whisper-like servers return), unlike a run-on. */
export function isPunctuated(transcript: CorpusTranscript): boolean {
  return splitSentences(transcriptText(transcript)).length >= 0.7 * transcript.sentences.length;
}

interface LabelledSpan {
  start: number;
  end: number;
  label: SectionLabel;
}

export interface Miss {
  id: string;
  expected: SectionLabel;
  got: SectionLabel | undefined;
  text: string;
}

export interface Score {
  right: number;
  total: number;
  accuracy: number;
  byStyle: Record<string, { right: number; total: number }>;
  byLabel: Record<string, { right: number; total: number }>;
  /** Corpus sentences whose words went to more than one section (found whole in none). */
  split: Miss[];
  misses: Miss[];
}

export function scoreCorpus(transcripts: CorpusTranscript[], label: (text: string, transcript: CorpusTranscript) => LabelledSpan[]): Score {
  const score: Score = { right: 0, total: 0, accuracy: 0, byStyle: {}, byLabel: {}, split: [], misses: [] };
  for (const transcript of transcripts) {
    const predicted = label(transcriptText(transcript), transcript);
    for (const [i, { start, end, label: expected }] of labelledSpans(transcript).entries()) {
      const text = transcript.sentences[i]![1];
      const got = majorityLabel(predicted, start, end);
      const labelsTouched = new Set(predicted.filter((span) => wordsOverlap(text, start, span)).map((span) => span.label));
      if (labelsTouched.size > 1) score.split.push({ id: transcript.id, expected, got, text });
      score.byStyle[transcript.style] ??= { right: 0, total: 0 };
      score.byLabel[expected] ??= { right: 0, total: 0 };
      const style = score.byStyle[transcript.style]!;
      const byLabel = score.byLabel[expected]!;
      score.total++;
      style.total++;
      byLabel.total++;
      if (got === expected) {
        score.right++;
        style.right++;
        byLabel.right++;
      } else {
        score.misses.push({ id: transcript.id, expected, got, text });
      }
    }
  }
  score.accuracy = score.total === 0 ? 0 : score.right / score.total;
  return score;
}

/** Whether a predicted span shares a word (not just spaces or punctuation) with the sentence at `start`. */
function wordsOverlap(text: string, start: number, span: LabelledSpan): boolean {
  const from = Math.max(0, span.start - start);
  const to = Math.min(text.length, span.end - start);
  return to > from && /[\p{L}\p{N}]/u.test(text.slice(from, to));
}

/**
 * Segments as a speech-to-text server might return them: each covers one to three whole labelled
 * sentences (servers cut at pauses, which mostly fall between sentences). Deterministic per id.
 */
export function simulatedSegments(transcript: CorpusTranscript): { text: string }[] {
  const segments: { text: string }[] = [];
  let state = fnv1a(transcript.id);
  const joiner = transcript.joiner ?? ' ';
  for (let i = 0; i < transcript.sentences.length; ) {
    state = Math.imul(state ^ (state >>> 13), 0x5bd1e995) >>> 0;
    const take = 1 + (state % 3);
    segments.push({
      text: transcript.sentences
        .slice(i, i + take)
        .map(([, text]) => text)
        .join(joiner),
    });
    i += take;
  }
  return segments;
}
