// Sectioning time: the whole `rules` sectioner (split, headings, model, Viterbi) per consultation
// of the corpus and on one 60-minute transcript (~9,000 words), against splitting alone (the bare
// baseline: what any sectioner must do). CPU only, in this process; no server involved.

import { performance } from 'node:perf_hooks';
import { splitSentences } from '../src/language/sentences.ts';
import { createRulesSectioner } from '../src/providers/sectioning/rules.ts';
import { loadWholeCorpus, transcriptText } from '../test/providers/corpus/corpus.ts';
import { fmt, median, percentile, type Row } from './lib/report.ts';

const sectioner = createRulesSectioner();
const signal = new AbortController().signal;

/** Milliseconds of each call of `run` over every text, `rounds` times (a returned promise is awaited). */
async function timeEach(texts: string[], run: (text: string) => unknown, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const text of texts) {
      const started = performance.now();
      await run(text);
      times.push(performance.now() - started);
    }
  }
  return times;
}

/** About `words` words of consultation, made of corpus transcripts one after another. */
export function longTranscript(texts: string[], words: number): string {
  const parts: string[] = [];
  let count = 0;
  for (let i = 0; count < words; i++) {
    const text = texts[i % texts.length]!;
    parts.push(text);
    count += text.split(/\s+/).length;
  }
  return parts.join(' ');
}

export async function runSectioningBench(): Promise<Row[]> {
  const texts = loadWholeCorpus().map(transcriptText);
  const section = (text: string) => sectioner.section({ text, segments: [], language: 'pt' }, signal);
  // Warm up the JIT and the stem cache as a long-running server would be.
  for (const text of texts) await section(text);

  const perConsultation = await timeEach(texts, section, 5);
  const baseline = await timeEach(texts, splitSentences, 5);

  const long = longTranscript(texts, 9_000);
  const longTimes = await timeEach([long], section, 10);
  const longBaseline = await timeEach([long], splitSentences, 10);

  return [
    {
      measurement: `per consultation, median (${texts.length} corpus transcripts)`,
      value: fmt.ms(median(perConsultation)),
      baseline: fmt.ms(median(baseline)),
      ratio: fmt.ratio(median(perConsultation) / median(baseline)),
    },
    {
      measurement: 'per consultation, p99',
      value: fmt.ms(percentile(perConsultation, 99)),
      baseline: fmt.ms(percentile(baseline, 99)),
      ratio: fmt.ratio(percentile(perConsultation, 99) / percentile(baseline, 99)),
    },
    {
      measurement: `60-minute transcript (${long.split(/\s+/).length} words), median of 10`,
      value: fmt.ms(median(longTimes)),
      baseline: fmt.ms(median(longBaseline)),
      ratio: fmt.ratio(median(longTimes) / median(longBaseline)),
      target: '< 1 s',
    },
  ];
}
