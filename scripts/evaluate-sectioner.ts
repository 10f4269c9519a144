// `npm run eval:sectioner`: how well the sentence model generalises. Trains on the tuning part and
// scores the held-out part (never tuned against), and runs k-fold cross-validation inside the
// tuning part (what model choices are made on). Prints accuracy per style and recall per label.

import { SECTION_LABELS } from '../src/providers/sectioning/port.ts';
import { assignSentences, TRANSITION_WEIGHT } from '../src/providers/sectioning/rules.ts';
import { trainModel } from '../src/providers/sectioning/training.ts';
import { type CorpusTranscript, loadCorpus, type Score, scoreCorpus, trainingSentences } from '../test/providers/corpus/corpus.ts';

const folds = Number(process.env.FOLDS ?? 5);
const transitionWeight = Number(process.env.TRANSITION_WEIGHT ?? TRANSITION_WEIGHT);
const showMisses = process.env.MISSES === '1';

function evaluate(train: CorpusTranscript[], test: CorpusTranscript[]): Score {
  const model = trainModel(train.map(trainingSentences));
  return scoreCorpus(test, (text) => assignSentences(text, model, transitionWeight));
}

function report(name: string, score: Score): void {
  const percent = (right: number, total: number) => `${((right / total) * 100).toFixed(1)} % (${right}/${total})`;
  console.log(`${name}: ${percent(score.right, score.total)}, ${score.split.length} sentence(s) split across sections`);
  for (const [style, s] of Object.entries(score.byStyle)) console.log(`  style ${style}: ${percent(s.right, s.total)}`);
  for (const label of SECTION_LABELS) {
    const s = score.byLabel[label];
    if (s) console.log(`  recall ${label}: ${percent(s.right, s.total)}`);
  }
  const confusions = new Map<string, number>();
  for (const miss of score.misses)
    confusions.set(`${miss.expected} → ${miss.got}`, (confusions.get(`${miss.expected} → ${miss.got}`) ?? 0) + 1);
  console.log(
    `  confusions: ${[...confusions]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
}

const tuning = loadCorpus('tuning');
const heldOut = loadCorpus('held-out');
console.log(`corpus: ${tuning.length} tuning + ${heldOut.length} held-out consultations; transition weight ${transitionWeight}`);

const crossValidated: Score[] = [];
for (let fold = 0; fold < folds; fold++) {
  const test = tuning.filter((_, i) => i % folds === fold);
  const train = tuning.filter((_, i) => i % folds !== fold);
  crossValidated.push(evaluate(train, test));
}
const merged: Score = { right: 0, total: 0, accuracy: 0, byStyle: {}, byLabel: {}, split: [], misses: [] };
for (const score of crossValidated) {
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
report(`${folds}-fold cross-validation on the tuning part`, merged);
if (showMisses) for (const miss of merged.misses) console.log(`    [${miss.id}] ${miss.expected} → ${miss.got}: ${miss.text}`);
if (process.env.HELD_OUT !== '0') report('held-out (model trained on the tuning part)', evaluate(tuning, heldOut));
