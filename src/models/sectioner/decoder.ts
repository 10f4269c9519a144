// Labels a whole consultation at once (Viterbi): each sentence's own evidence plus how sections
// follow each other (history → exam → diagnosis → plan → follow-up, neighbours alike), so one
// ambiguous sentence is read in the light of the sentences around it.

export interface DecoderInput {
  /** Per sentence, the score of each label from its own features, in label order. */
  emissions: number[][];
  /** Per sentence, the labels it may take (a spoken heading decides), or null for any. */
  allowed: (readonly number[] | null)[];
  start: number[];
  transitions: number[][];
  /**
   * Per sentence, what a change of section from the sentence before costs beyond the transition:
   * positive where the cut itself is a guess (no punctuation), so that a wrong cut rarely splits
   * one spoken sentence over two sections.
   */
  changePenalty?: number[];
}

/** The most likely label index of every sentence. */
export function decode(input: DecoderInput): number[] {
  const { emissions, allowed, start, transitions, changePenalty = [] } = input;
  const count = emissions.length;
  if (count === 0) return [];
  const labels = start.length;
  const emission = (i: number, l: number) => {
    const only = allowed[i];
    return only && !only.includes(l) ? Number.NEGATIVE_INFINITY : emissions[i]![l]!;
  };

  let previous = Array.from({ length: labels }, (_, l) => start[l]! + emission(0, l));
  const backPointers: Int8Array[] = [];
  for (let i = 1; i < count; i++) {
    const current = new Array<number>(labels);
    const back = new Int8Array(labels);
    for (let l = 0; l < labels; l++) {
      let best = Number.NEGATIVE_INFINITY;
      let from = 0;
      for (let k = 0; k < labels; k++) {
        const score = previous[k]! + transitions[k]![l]! - (k === l ? 0 : (changePenalty[i] ?? 0));
        if (score > best) {
          best = score;
          from = k;
        }
      }
      current[l] = best + emission(i, l);
      back[l] = from;
    }
    backPointers.push(back);
    previous = current;
  }

  const path = new Array<number>(count);
  path[count - 1] = previous.indexOf(Math.max(...previous));
  for (let i = count - 1; i > 0; i--) path[i - 1] = backPointers[i - 1]![path[i]!]!;
  return path;
}
