// The section model: a linear-chain CRF's weights — a score per label for every sentence
// feature, and scores for the first section, for one section following another and for a change
// of section at a guessed cut. Learned from the labelled corpus (`npm run train:sectioner`) and
// shipped as JSON; this file only reads and applies them.

import { SECTION_LABELS, type SectionLabel } from '../../language/sections.ts';
import type { BoundaryModel } from './boundaries.ts';

export interface SectionModel {
  /** Label order of every weight vector. */
  labels: readonly SectionLabel[];
  /** feature → one weight per label. */
  weights: Record<string, number[]>;
  /** Score of each label for the first sentence. */
  start: number[];
  /** Score of one label following another, [from][to]. */
  transitions: number[][];
  /** What a change of section costs at a guessed cut, per band of the cut's chance (cutBand in boundaries.ts). */
  guessedChangePenalties: number[];
  /** Where sentences start inside unpunctuated runs. */
  boundary: BoundaryModel;
}

/** The score of every label for a sentence's features, in `model.labels` order. */
export function labelScores(model: SectionModel, features: readonly string[]): number[] {
  const scores = new Array<number>(model.labels.length).fill(0);
  for (const feature of features) {
    const weights = model.weights[feature];
    if (!weights) continue;
    for (let l = 0; l < scores.length; l++) scores[l]! += weights[l]!;
  }
  return scores;
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
