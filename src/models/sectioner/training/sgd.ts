// What both learners (the boundary model's logistic regression and the section CRF) share:
// per-feature weight vectors created on first use, AdaGrad steps, and a seeded shuffle.

/** The vector stored under `key`, created with `size` copies of `initial` the first time. */
export function vectorOf(map: Map<string, Float64Array>, key: string, size: number, initial: number): Float64Array {
  let found = map.get(key);
  if (!found) {
    found = new Float64Array(size).fill(initial);
    map.set(key, found);
  }
  return found;
}

/** One AdaGrad step on `weights[index]`: the step shrinks as squared gradients accumulate. */
export function adagradStep(
  weights: Float64Array,
  squaredGradients: Float64Array,
  index: number,
  gradient: number,
  learningRate: number,
): void {
  squaredGradients[index]! += gradient * gradient;
  weights[index]! -= (learningRate * gradient) / Math.sqrt(squaredGradients[index]!);
}

/** Fisher-Yates with the caller's seeded PRNG, so training is reproducible. */
export function shuffle(items: number[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
