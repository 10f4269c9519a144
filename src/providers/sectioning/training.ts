// Learns a SectionModel from labelled consultations: logistic regression by AdaGrad SGD with L2,
// and smoothed section-to-section counts. Deterministic (seeded shuffle), so the committed model
// is reproducible with `npm run train:sectioner`; tests train on one part of the corpus and score
// the other with it.

import { logSoftmax, type SectionModel } from './model.ts';
import { SECTION_LABELS } from './port.ts';

export interface TrainingSentence {
  features: string[];
  label: number;
}

export interface TrainingOptions {
  epochs: number;
  learningRate: number;
  l2: number;
  /** Features seen in fewer sentences are dropped (noise, and a smaller model file). */
  minCount: number;
  seed: number;
}

export const DEFAULT_TRAINING: TrainingOptions = { epochs: 20, learningRate: 0.3, l2: 1e-4, minCount: 2, seed: 7 };

export function trainModel(consultations: TrainingSentence[][], options: TrainingOptions = DEFAULT_TRAINING): SectionModel {
  const labels = SECTION_LABELS.length;
  const sentences = consultations.flat();
  const counts = new Map<string, number>();
  for (const { features } of sentences) for (const feature of features) counts.set(feature, (counts.get(feature) ?? 0) + 1);
  const kept = (feature: string) => (counts.get(feature) ?? 0) >= options.minCount;

  const weights = new Map<string, Float64Array>();
  const squaredGradients = new Map<string, Float64Array>();
  const vector = (map: Map<string, Float64Array>, feature: string, initial: number) => {
    let found = map.get(feature);
    if (!found) {
      found = new Float64Array(labels).fill(initial);
      map.set(feature, found);
    }
    return found;
  };

  const random = mulberry32(options.seed);
  const order = sentences.map((_, i) => i);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    shuffle(order, random);
    for (const index of order) {
      const { features, label } = sentences[index]!;
      const active = features.filter(kept);
      const scores = new Array<number>(labels).fill(0);
      for (const feature of active) {
        const w = vector(weights, feature, 0);
        for (let l = 0; l < labels; l++) scores[l]! += w[l]!;
      }
      const probabilities = logSoftmax(scores).map(Math.exp);
      for (const feature of active) {
        const w = vector(weights, feature, 0);
        const g2 = vector(squaredGradients, feature, 1e-8);
        for (let l = 0; l < labels; l++) {
          const gradient = probabilities[l]! - (l === label ? 1 : 0) + options.l2 * w[l]!;
          g2[l]! += gradient * gradient;
          w[l]! -= (options.learningRate * gradient) / Math.sqrt(g2[l]!);
        }
      }
    }
  }

  const start = new Array<number>(labels).fill(1);
  const transitions = Array.from({ length: labels }, () => new Array<number>(labels).fill(1));
  for (const consultation of consultations) {
    const first = consultation[0];
    if (first) start[first.label]! += 1;
    for (let i = 1; i < consultation.length; i++) transitions[consultation[i - 1]!.label]![consultation[i]!.label]! += 1;
  }

  const rounded: Record<string, number[]> = {};
  for (const [feature, w] of [...weights].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (w.every((value) => Math.abs(value) < 0.005)) continue;
    rounded[feature] = [...w].map((value) => Math.round(value * 1000) / 1000);
  }
  return {
    labels: SECTION_LABELS,
    weights: rounded,
    start: logNormalise(start),
    transitions: transitions.map(logNormalise),
  };
}

function logNormalise(counts: number[]): number[] {
  const total = counts.reduce((sum, count) => sum + count, 0);
  return counts.map((count) => Math.round(Math.log(count / total) * 1000) / 1000);
}

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle(items: number[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
