// Learns the sectioner's model from labelled consultations: first where sentences start inside
// unpunctuated runs (binary logistic regression over the words either side of a gap), then, on
// the pieces that this model cuts when labelling, the section of each piece and how sections
// follow each other, learned together (a linear-chain CRF, chain-training.ts). AdaGrad SGD with L2
// and a seeded shuffle, so the committed model is reproducible with `npm run train:sectioner`;
// tests train on one part of the corpus and score another with it.

import { fold } from '../../../language/fold.ts';
import { SECTION_LABELS, type SectionLabel } from '../../../language/sections.ts';
import { splitSentences } from '../../../language/sentences.ts';
import { type BoundaryModel, CUT_BANDS, cutBand, gapFeatures, runWords } from '../boundaries.ts';
import { logSoftmax, type SectionModel } from '../model.ts';
import { analyseSentences } from '../sectioner.ts';
import { trainChain } from './chain-training.ts';
import { adagradStep, shuffle, vectorOf } from './sgd.ts';

/** A transcript and the labelled sentences it is made of (character offsets into `text`). */
export interface LabelledTranscript {
  text: string;
  units: { start: number; end: number; label: SectionLabel }[];
}

/** How one logistic model is fitted (AdaGrad SGD with L2). */
export interface FitOptions {
  epochs: number;
  learningRate: number;
  l2: number;
}

export interface TrainingOptions {
  /** The boundary model (where a sentence starts inside a run). */
  boundary: FitOptions;
  /** The section model (a CRF over each consultation's pieces). */
  sections: FitOptions;
  /** Features seen in fewer examples are dropped (noise, and a smaller model file). */
  minCount: number;
  /**
   * Inside a run, a piece starts wherever the boundary model gives a sentence start at least this
   * chance: far lower than a sentence end, so the section model chooses where the section changes
   * among many places (what a change costs is learned per band of that chance); pieces left in
   * one section are joined again.
   */
  cutThreshold: number;
  seed: number;
}

// Chosen by cross-validation on the corpus's tuning part (docs/providers.md).
export const DEFAULT_TRAINING: TrainingOptions = {
  boundary: { epochs: 20, learningRate: 0.3, l2: 1e-4 },
  sections: { epochs: 10, learningRate: 0.1, l2: 1e-4 },
  minCount: 2,
  cutThreshold: 0.02,
  seed: 7,
};

interface Example {
  features: string[];
  target: number;
}

export function trainSectioner(transcripts: LabelledTranscript[], options: TrainingOptions = DEFAULT_TRAINING): SectionModel {
  const boundary: BoundaryModel = {
    weights: roundWeights(fitLogistic(transcripts.flatMap(boundaryExamples), 2, options.boundary, options), (w) => w[1]! - w[0]!),
    threshold: options.cutThreshold,
  };
  const analysed = transcripts.map((transcript) => ({ transcript, pieces: analyseSentences(transcript.text, boundary) }));
  const keep = frequentFeatures(
    analysed.flatMap(({ pieces }) => pieces.map(({ features }) => features)),
    options.minCount,
  );
  const sequences = analysed.map(({ transcript, pieces }) => ({
    features: pieces.map(({ features }) => features.filter(keep)),
    targets: pieces.map((piece) => SECTION_LABELS.indexOf(majorityLabel(transcript.units, piece.start, piece.end) ?? 'observations')),
    allowed: pieces.map((piece) => piece.allowed),
    bands: pieces.map(cutBand),
  }));
  const chain = trainChain(sequences, SECTION_LABELS.length, CUT_BANDS, { ...options.sections, random: mulberry32(options.seed) });
  return {
    labels: SECTION_LABELS,
    weights: roundWeights(chain.weights, (w) => [...w]),
    start: [...chain.start].map(round),
    transitions: chain.transitions.map((row) => [...row].map(round)),
    guessedChangePenalties: [...chain.changePenalties].map(round),
    boundary,
  };
}

/** Every gap between words inside the runs punctuation leaves, and whether a labelled sentence starts there. */
function boundaryExamples({ text, units }: LabelledTranscript): Example[] {
  const folded = fold(text);
  const unitStarts = new Set(units.map((unit) => unit.start));
  const examples: Example[] = [];
  for (const span of splitSentences(text, folded)) {
    const words = runWords(folded, span.start, span.end);
    let lastCut = 0;
    for (let i = 1; i < words.length; i++) {
      const cut = unitStarts.has(words[i]!.start);
      examples.push({ features: gapFeatures(words, i, i - lastCut, text), target: cut ? 1 : 0 });
      if (cut) lastCut = i;
    }
  }
  return examples;
}

export function majorityLabel(units: LabelledTranscript['units'], start: number, end: number): SectionLabel | undefined {
  const overlap = new Map<SectionLabel, number>();
  for (const unit of units) {
    const shared = Math.min(end, unit.end) - Math.max(start, unit.start);
    if (shared > 0) overlap.set(unit.label, (overlap.get(unit.label) ?? 0) + shared);
  }
  return [...overlap].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** Whether a feature is seen in at least `minCount` of these lists (rarer ones are noise, and would bloat the model file). */
function frequentFeatures(featureLists: string[][], minCount: number): (feature: string) => boolean {
  const counts = new Map<string, number>();
  for (const features of featureLists) for (const feature of features) counts.set(feature, (counts.get(feature) ?? 0) + 1);
  return (feature) => (counts.get(feature) ?? 0) >= minCount;
}

/** Softmax regression over `classes` (two classes make a logistic regression). */
function fitLogistic(examples: Example[], classes: number, fit: FitOptions, options: TrainingOptions): Map<string, Float64Array> {
  const keep = frequentFeatures(
    examples.map(({ features }) => features),
    options.minCount,
  );
  const activeFeatures = examples.map(({ features }) => features.filter(keep));

  const weights = new Map<string, Float64Array>();
  const squaredGradients = new Map<string, Float64Array>();
  const vector = (map: Map<string, Float64Array>, feature: string, initial: number) => vectorOf(map, feature, classes, initial);

  const random = mulberry32(options.seed);
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < fit.epochs; epoch++) {
    shuffle(order, random);
    for (const index of order) {
      const target = examples[index]!.target;
      const active = activeFeatures[index]!;
      const scores = new Array<number>(classes).fill(0);
      for (const feature of active) {
        const w = vector(weights, feature, 0);
        for (let c = 0; c < classes; c++) scores[c]! += w[c]!;
      }
      const probabilities = logSoftmax(scores).map(Math.exp);
      for (const feature of active) {
        const w = vector(weights, feature, 0);
        const g2 = vector(squaredGradients, feature, 1e-8);
        for (let c = 0; c < classes; c++)
          adagradStep(w, g2, c, probabilities[c]! - (c === target ? 1 : 0) + fit.l2 * w[c]!, fit.learningRate);
      }
    }
  }
  return weights;
}

/** Sorted, rounded to 3 decimals, near-zero features dropped: a stable, compact JSON file. */
function roundWeights<T extends number | number[]>(weights: Map<string, Float64Array>, shape: (w: Float64Array) => T): Record<string, T> {
  const rounded: Record<string, T> = {};
  for (const [feature, w] of [...weights].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const value = shape(w);
    const values = Array.isArray(value) ? value : [value as number];
    if (values.every((v) => Math.abs(v) < 0.005)) continue;
    rounded[feature] = (Array.isArray(value) ? value.map(round) : round(value as number)) as T;
  }
  return rounded;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** A small seeded PRNG (mulberry32): reproducible training, and reproducible generated test input. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
