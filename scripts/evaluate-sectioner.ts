// `npm run eval:sectioner`: how well the sentence model generalises. Trains on the tuning part and
// scores the held-out part (never tuned against), and runs k-fold cross-validation inside the
// tuning part (what model choices are made on). Prints accuracy per style and recall per label,
// for punctuated transcripts and run-ons apart, and for run-ons again with the segments a
// speech-to-text server would send along; and every transcript again as a small Whisper writes it
// (the noise model of test/noise/spoken-style.ts, segments cut anywhere), printed beside the clean
// figure.

import { assignSentences } from '../src/models/sectioner/sectioner.ts';
import { DEFAULT_TRAINING, type TrainingOptions, trainSectioner } from '../src/models/sectioner/training/training.ts';
import { SECTION_LABELS, type SectionLabel } from '../src/providers/sectioning/port.ts';
import { cutAnywhere, noisySentence, random, seedOf } from '../test/noise/spoken-style.ts';
import {
  type CorpusTranscript,
  isPunctuated,
  labelledTranscript,
  loadCorpus,
  type Score,
  scoreCorpus,
  simulatedSegments,
} from '../test/providers/corpus/corpus.ts';

const folds = Number(process.env.FOLDS ?? 5);
// TRAINING='{"cutThreshold": 0.05}' tries other training options than the shipped ones (merged one level deep).
const overrides = JSON.parse(process.env.TRAINING ?? '{}') as Partial<Record<keyof TrainingOptions, unknown>>;
const training = Object.fromEntries(
  Object.entries(DEFAULT_TRAINING).map(([key, value]) => [
    key,
    typeof value === 'object'
      ? { ...value, ...(overrides[key as keyof TrainingOptions] as object) }
      : (overrides[key as keyof TrainingOptions] ?? value),
  ]),
) as unknown as TrainingOptions;
const showMisses = process.env.MISSES === '1';

/** The transcript as a small Whisper writes it: each sentence through the noise model, joined by spaces. */
function spokenStyle(transcript: CorpusTranscript): CorpusTranscript {
  const rng = random(seedOf(transcript.id));
  return {
    ...transcript,
    joiner: ' ',
    sentences: transcript.sentences.map(([label, text]) => [label, noisySentence(text, rng, { seed: 0 })] as [SectionLabel, string]),
  };
}

const spokenSegments = (text: string, transcript: CorpusTranscript) =>
  cutAnywhere(text, random(seedOf(transcript.id, 1))).map((piece) => ({ text: piece }));

function evaluate(train: CorpusTranscript[], test: CorpusTranscript[]): Score {
  const model = trainSectioner(train.map(labelledTranscript), training);
  const spoken = test.map(spokenStyle);
  const textOnly = (text: string) => assignSentences(text, model);
  const score = scoreCorpus(test, textOnly);
  const parts = [
    ['punctuated', scoreCorpus(test.filter(isPunctuated), textOnly)],
    [
      'run-on',
      scoreCorpus(
        test.filter((t) => !isPunctuated(t)),
        textOnly,
      ),
    ],
    [
      'run-on with segments',
      scoreCorpus(
        test.filter((t) => !isPunctuated(t)),
        (text, t) => assignSentences(text, model, simulatedSegments(t)),
      ),
    ],
    // Every transcript as a small Whisper writes it (test/noise/spoken-style.ts), with its segments cut anywhere.
    ['spoken-style', scoreCorpus(spoken, (text, t) => assignSentences(text, model, spokenSegments(text, t)))],
  ] as const;
  for (const [name, part] of parts) {
    score.byStyle[name] = { right: part.right, total: part.total };
    score.byStyle[`${name}, split`] = { right: part.split.length, total: part.total };
  }
  return score;
}

function merge(scores: Score[]): Score {
  const merged: Score = { right: 0, total: 0, accuracy: 0, byStyle: {}, byLabel: {}, split: [], misses: [] };
  for (const score of scores) {
    merged.right += score.right;
    merged.total += score.total;
    merged.split.push(...score.split);
    merged.misses.push(...score.misses);
    for (const key of ['byStyle', 'byLabel'] as const) {
      for (const [name, s] of Object.entries(score[key])) {
        merged[key][name] ??= { right: 0, total: 0 };
        merged[key][name].right += s.right;
        merged[key][name].total += s.total;
      }
    }
  }
  merged.accuracy = merged.right / merged.total;
  return merged;
}

function report(name: string, score: Score): void {
  const percent = (right: number, total: number) => `${((right / total) * 100).toFixed(1)} % (${right}/${total})`;
  // A split sentence may still be right by the majority of its words, but no single section holds it.
  const rightAndWhole = score.right - score.split.filter((miss) => miss.got === miss.expected).length;
  console.log(`${name}: ${percent(score.right, score.total)}, ${score.split.length} sentence(s) split across sections`);
  console.log(`  right and whole in one section: ${percent(rightAndWhole, score.total)}`);
  const spoken = score.byStyle['spoken-style']!;
  console.log(`  clean vs spoken-style (noise model): ${percent(score.right, score.total)} | ${percent(spoken.right, spoken.total)}`);
  for (const [style, s] of Object.entries(score.byStyle)) console.log(`  ${style}: ${percent(s.right, s.total)}`);
  for (const label of SECTION_LABELS) {
    const s = score.byLabel[label];
    if (s) console.log(`  recall ${label}: ${percent(s.right, s.total)}`);
  }
  const confusions = new Map<string, number>();
  for (const { expected, got } of score.misses) confusions.set(`${expected} → ${got}`, (confusions.get(`${expected} → ${got}`) ?? 0) + 1);
  const top = [...confusions].sort((a, b) => b[1] - a[1]).slice(0, 8);
  console.log(`  confusions: ${top.map(([pair, n]) => `${pair} ${n}`).join(', ')}`);
  if (showMisses) for (const miss of score.misses) console.log(`    [${miss.id}] ${miss.expected} → ${miss.got}: ${miss.text}`);
  if (process.env.SPLITS === '1') for (const miss of score.split) console.log(`    split [${miss.id}] ${miss.expected}: ${miss.text}`);
}

const tuning = loadCorpus('tuning');
const heldOut = loadCorpus('held-out');
console.log(`corpus: ${tuning.length} tuning + ${heldOut.length} held-out consultations; training ${JSON.stringify(training)}`);
const crossValidated = Array.from({ length: folds }, (_, fold) =>
  evaluate(
    tuning.filter((_, i) => i % folds !== fold),
    tuning.filter((_, i) => i % folds === fold),
  ),
);
report(`${folds}-fold cross-validation on the tuning part`, merge(crossValidated));
if (process.env.HELD_OUT !== '0') report('held-out (model trained on the tuning part)', evaluate(tuning, heldOut));
