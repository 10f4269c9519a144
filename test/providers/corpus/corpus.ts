// Loads the labelled corpus and scores a sentence labeller against it. A labelled sentence counts
// as right when most of its characters fall in sentences given its label, so the score does not
// depend on the splitter cutting exactly where the corpus does (unpunctuated ASR text).

import { readFileSync } from 'node:fs';
import type { SectionLabel } from '../../../src/providers/sectioning/port.ts';

export interface CorpusTranscript {
  id: string;
  style: 'headings' | 'plain' | 'dialogue';
  species: string;
  joiner?: string;
  sentences: [SectionLabel, string][];
}

export function loadCorpus(name: 'tuning' | 'held-out'): CorpusTranscript[] {
  const url = new URL(`./${name}.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { transcripts: CorpusTranscript[] }).transcripts;
}

export function transcriptText(transcript: CorpusTranscript): string {
  return transcript.sentences.map(([, text]) => text).join(transcript.joiner ?? ' ');
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
  misses: Miss[];
}

export function scoreCorpus(transcripts: CorpusTranscript[], label: (text: string) => LabelledSpan[]): Score {
  const score: Score = { right: 0, total: 0, accuracy: 0, byStyle: {}, misses: [] };
  for (const transcript of transcripts) {
    const joiner = transcript.joiner ?? ' ';
    const predicted = label(transcriptText(transcript));
    let offset = 0;
    for (const [expected, text] of transcript.sentences) {
      const start = offset;
      const end = offset + text.length;
      offset = end + joiner.length;
      const overlap = new Map<SectionLabel, number>();
      for (const span of predicted) {
        const shared = Math.min(end, span.end) - Math.max(start, span.start);
        if (shared > 0) overlap.set(span.label, (overlap.get(span.label) ?? 0) + shared);
      }
      const got = [...overlap].sort((a, b) => b[1] - a[1])[0]?.[0];
      score.byStyle[transcript.style] ??= { right: 0, total: 0 };
      const style = score.byStyle[transcript.style]!;
      score.total++;
      style.total++;
      if (got === expected) {
        score.right++;
        style.right++;
      } else {
        score.misses.push({ id: transcript.id, expected, got, text });
      }
    }
  }
  score.accuracy = score.total === 0 ? 0 : score.right / score.total;
  return score;
}
