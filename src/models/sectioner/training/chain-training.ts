// Learns the sentence model and the section sequence together: a linear-chain conditional random
// field over whole consultations (log-likelihood of the labelled sequence, AdaGrad SGD, L2). Unlike
// a per-sentence classifier followed by counted transitions, it weighs a sentence's own words
// against its neighbours' sections as the decoder will, and learns what a change of section at a
// guessed cut costs.

import { adagradStep, shuffle, vectorOf } from './sgd.ts';

export interface ChainSequence {
  /** Per sentence, its active features. */
  features: string[][];
  /** Per sentence, the labelled section (index). */
  targets: number[];
  /** Per sentence, the labels a spoken heading leaves it, or null. */
  allowed: (readonly number[] | null)[];
  /** Per sentence, the band of its guessed start (cutBand), -1 when not guessed. */
  bands: number[];
}

export interface ChainParameters {
  weights: Map<string, Float64Array>;
  start: Float64Array;
  transitions: Float64Array[];
  changePenalties: Float64Array;
}

export interface ChainOptions {
  epochs: number;
  learningRate: number;
  l2: number;
  random: () => number;
}

function logSumExp(values: ArrayLike<number>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
  if (max === Number.NEGATIVE_INFINITY) return max;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += Math.exp(values[i]! - max);
  return max + Math.log(sum);
}

export function trainChain(sequences: ChainSequence[], labels: number, bandCount: number, options: ChainOptions): ChainParameters {
  const weights = new Map<string, Float64Array>();
  const squared = new Map<string, Float64Array>();
  const vector = (map: Map<string, Float64Array>, key: string, initial: number) => vectorOf(map, key, labels, initial);
  const start = new Float64Array(labels);
  const startSquared = new Float64Array(labels).fill(1e-8);
  const transitions = Array.from({ length: labels }, () => new Float64Array(labels));
  const transitionSquared = Array.from({ length: labels }, () => new Float64Array(labels).fill(1e-8));
  const changePenalties = new Float64Array(bandCount);
  const penaltySquared = new Float64Array(bandCount).fill(1e-8);
  const { learningRate, l2 } = options;
  const step = (w: Float64Array, g2: Float64Array, l: number, gradient: number) => adagradStep(w, g2, l, gradient, learningRate);

  const sums = new Map<string, Float64Array>();
  const transitionSums = Array.from({ length: labels }, () => new Float64Array(labels));
  const startSums = new Float64Array(labels);
  const penaltySums = new Float64Array(bandCount);
  let snapshots = 0;
  const order = sequences.map((_, i) => i);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    shuffle(order, options.random);
    for (const index of order) {
      const { features, targets, allowed, bands } = sequences[index]!;
      const n = targets.length;
      if (n === 0) continue;
      // A heading that disagrees with the label would leave the labelled sequence impossible.
      const open = allowed.map((only, i) => (only?.includes(targets[i]!) ? only : null));
      const emissions = features.map((active, i) => {
        const scores = new Float64Array(labels);
        for (const feature of active) {
          const w = weights.get(feature);
          if (w) for (let l = 0; l < labels; l++) scores[l]! += w[l]!;
        }
        const only = open[i];
        if (only) for (let l = 0; l < labels; l++) if (!only.includes(l)) scores[l] = Number.NEGATIVE_INFINITY;
        return scores;
      });
      const pair = (i: number, k: number, l: number) => transitions[k]![l]! - (bands[i]! >= 0 && k !== l ? changePenalties[bands[i]!]! : 0);

      const alpha = emissions.map(() => new Float64Array(labels));
      const beta = emissions.map(() => new Float64Array(labels));
      const scratch = new Float64Array(labels);
      for (let l = 0; l < labels; l++) alpha[0]![l] = start[l]! + emissions[0]![l]!;
      for (let i = 1; i < n; i++) {
        for (let l = 0; l < labels; l++) {
          for (let k = 0; k < labels; k++) scratch[k] = alpha[i - 1]![k]! + pair(i, k, l);
          alpha[i]![l] = logSumExp(scratch) + emissions[i]![l]!;
        }
      }
      for (let i = n - 2; i >= 0; i--) {
        for (let k = 0; k < labels; k++) {
          for (let l = 0; l < labels; l++) scratch[l] = pair(i + 1, k, l) + emissions[i + 1]![l]! + beta[i + 1]![l]!;
          beta[i]![k] = logSumExp(scratch);
        }
      }
      const logZ = logSumExp(alpha[n - 1]!);

      const featureGradients = new Map<string, Float64Array>();
      for (let i = 0; i < n; i++) {
        const marginal = new Float64Array(labels);
        for (let l = 0; l < labels; l++) marginal[l] = Math.exp(alpha[i]![l]! + beta[i]![l]! - logZ);
        marginal[targets[i]!]! -= 1;
        for (const feature of features[i]!) {
          const g = vector(featureGradients, feature, 0);
          for (let l = 0; l < labels; l++) g[l]! += marginal[l]!;
        }
        if (i === 0) for (let l = 0; l < labels; l++) step(start, startSquared, l, marginal[l]! + l2 * start[l]!);
      }
      const transitionGradients = Array.from({ length: labels }, () => new Float64Array(labels));
      const penaltyGradients = new Float64Array(bandCount);
      for (let i = 1; i < n; i++) {
        for (let k = 0; k < labels; k++) {
          for (let l = 0; l < labels; l++) {
            const probability = Math.exp(alpha[i - 1]![k]! + pair(i, k, l) + emissions[i]![l]! + beta[i]![l]! - logZ);
            transitionGradients[k]![l]! += probability;
            if (bands[i]! >= 0 && k !== l) penaltyGradients[bands[i]!]! -= probability;
          }
        }
        transitionGradients[targets[i - 1]!]![targets[i]!]! -= 1;
        if (bands[i]! >= 0 && targets[i - 1] !== targets[i]) penaltyGradients[bands[i]!]! += 1;
      }
      for (let k = 0; k < labels; k++)
        for (let l = 0; l < labels; l++)
          step(transitions[k]!, transitionSquared[k]!, l, transitionGradients[k]![l]! + l2 * transitions[k]![l]!);
      for (let b = 0; b < bandCount; b++) step(changePenalties, penaltySquared, b, penaltyGradients[b]!);
      for (const [feature, gradient] of featureGradients) {
        const w = vector(weights, feature, 0);
        const g2 = vector(squared, feature, 1e-8);
        for (let l = 0; l < labels; l++) step(w, g2, l, gradient[l]! + l2 * w[l]!);
      }
    }
    snapshots++;
    for (const [feature, w] of weights) {
      const sum = vector(sums, feature, 0);
      for (let l = 0; l < labels; l++) sum[l]! += w[l]!;
    }
    for (let k = 0; k < labels; k++) for (let l = 0; l < labels; l++) transitionSums[k]![l]! += transitions[k]![l]!;
    for (let l = 0; l < labels; l++) startSums[l]! += start[l]!;
    for (let b = 0; b < bandCount; b++) penaltySums[b]! += changePenalties[b]!;
  }
  const mean = (sum: Float64Array) => sum.map((value) => value / Math.max(1, snapshots));
  return {
    weights: new Map([...sums].map(([feature, sum]) => [feature, mean(sum)])),
    start: mean(startSums),
    transitions: transitionSums.map(mean),
    changePenalties: mean(penaltySums),
  };
}
