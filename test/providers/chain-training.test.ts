import { describe, expect, it } from 'vitest';
import { decode } from '../../src/models/sectioner/decoder.ts';
import { type ChainSequence, trainChain } from '../../src/models/sectioner/training/chain-training.ts';
import { mulberry32 } from '../../src/models/sectioner/training/training.ts';

const options = { epochs: 30, learningRate: 0.3, l2: 1e-4, random: mulberry32(1) };

function labelWith(parameters: ReturnType<typeof trainChain>, sequence: ChainSequence): number[] {
  return decode({
    emissions: sequence.features.map((active) =>
      [0, 1].map((l) => active.reduce((sum, feature) => sum + (parameters.weights.get(feature)?.[l] ?? 0), 0)),
    ),
    allowed: sequence.allowed,
    start: [...parameters.start],
    transitions: parameters.transitions.map((row) => [...row]),
    changePenalty: sequence.bands.map((band) => (band < 0 ? 0 : parameters.changePenalties[band]!)),
  });
}

describe('linear-chain CRF training', () => {
  it('labels a sentence its words cannot place by the sentences around it', () => {
    // "ambiguous" is label 0 after "a" and label 1 after "b": only the sequence tells.
    const sequences: ChainSequence[] = Array.from({ length: 20 }, (_, i) => {
      const label = i % 2;
      return {
        features: [[label === 0 ? 'a' : 'b'], ['ambiguous'], ['ambiguous']],
        targets: [label, label, label],
        allowed: [null, null, null],
        bands: [-1, -1, -1],
      };
    });
    const parameters = trainChain(sequences, 2, 1, options);
    for (const first of ['a', 'b']) {
      const sequence = { ...sequences[0]!, features: [[first], ['ambiguous'], ['ambiguous']] };
      const expected = first === 'a' ? 0 : 1;
      expect(labelWith(parameters, sequence)).toEqual([expected, expected, expected]);
    }
  });

  it('learns that a change of section at a guessed cut is rarer than at a sentence end', () => {
    // The label changes at every punctuated start (band -1) and never at a guessed cut (band 0).
    const sequences: ChainSequence[] = Array.from({ length: 30 }, (_, i) => ({
      features: [['x'], ['y'], ['x'], ['y']],
      targets: i % 2 ? [0, 0, 1, 1] : [1, 1, 0, 0],
      allowed: [null, null, null, null],
      bands: [-1, 0, -1, 0],
    }));
    const parameters = trainChain(sequences, 2, 1, options);
    expect(parameters.changePenalties[0]).toBeGreaterThan(1);
  });

  it('respects a spoken heading: a disallowed label is never learned as possible', () => {
    const sequences: ChainSequence[] = [{ features: [['h']], targets: [1], allowed: [[1]], bands: [-1] }];
    const parameters = trainChain(sequences, 2, 1, options);
    expect(labelWith(parameters, { ...sequences[0]!, allowed: [[1]] })).toEqual([1]);
  });
});
