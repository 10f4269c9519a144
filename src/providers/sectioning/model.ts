// The sentence model: a multinomial logistic regression over sentence features, plus how often
// one section follows another. The weights are learned from the labelled corpus
// (`npm run train:sectioner`) and shipped as JSON; this file only reads and applies them.

import type { BoundaryModel } from './boundaries.ts';
import { SECTION_LABELS, type SectionLabel } from './port.ts';

export interface SectionModel {
  /** Label order of every weight vector. */
  labels: readonly SectionLabel[];
  /** feature → one weight per label. */
  weights: Record<string, number[]>;
  /** log P(label of the first sentence). */
  start: number[];
  /** log P(next label | label), [from][to]. */
  transitions: number[][];
  /** Where sentences start inside unpunctuated runs. */
  boundary: BoundaryModel;
}

/** log P(label | features) for every label, in `model.labels` order. */
export function labelLogProbabilities(model: SectionModel, features: readonly string[]): number[] {
  const scores = new Array<number>(model.labels.length).fill(0);
  for (const feature of features) {
    const weights = model.weights[feature];
    if (!weights) continue;
    for (let l = 0; l < scores.length; l++) scores[l]! += weights[l]!;
  }
  return logSoftmax(scores);
}

export function logSoftmax(scores: number[]): number[] {
  const max = Math.max(...scores);
  let sum = 0;
  for (const score of scores) sum += Math.exp(score - max);
  const log = max + Math.log(sum);
  return scores.map((score) => score - log);
}

export function labelIndex(label: SectionLabel): number {
  return SECTION_LABELS.indexOf(label);
}
