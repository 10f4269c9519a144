import { describe, expect, it } from 'vitest';
import { cutAnywhere, misheardSpelling, noisySentence, numberWords, random, seedOf } from '../noise/spoken-style.ts';

// The noise model the evaluations measure spoken-style text with (test/noise/spoken-style.ts):
// deterministic, and doing what its description says.

const SENTENCE =
  'Exame físico: peso 32,4 kg, temperatura 38,5 °C e frequência cardíaca 104 bpm. Prescrevo meloxicam 0,1 mg/kg a cada 24 horas.';

describe('the spoken-style noise model', () => {
  it('gives the same text for the same seed, and another for another seed', () => {
    const once = noisySentence(SENTENCE, random(seedOf('case-1')), { seed: 0, misspellDrugs: 0.5 });
    expect(noisySentence(SENTENCE, random(seedOf('case-1')), { seed: 0, misspellDrugs: 0.5 })).toBe(once);
    const others = new Set(Array.from({ length: 10 }, (_, seed) => noisySentence(SENTENCE, random(seed), { seed: 0 })));
    expect(others.size).toBeGreaterThan(5);
    expect(cutAnywhere(once, random(3))).toEqual(cutAnywhere(once, random(3)));
  });

  it('leaves no capital and no punctuation but the marks inside numbers and units', () => {
    for (let seed = 0; seed < 50; seed++) {
      const noisy = noisySentence(SENTENCE, random(seed), { seed: 0 });
      expect(noisy).toBe(noisy.toLowerCase());
      expect(noisy.replace(/\d[.,]\d|\/|°/g, '')).not.toMatch(/[.,:;!?]/);
    }
  });

  it('writes numbers in words or with either decimal mark, and units in words, about half the time each', () => {
    const outputs = Array.from({ length: 200 }, (_, seed) => noisySentence('temperatura 38,5 e peso 12 kg', random(seed), { seed: 0 }));
    const share = (pattern: RegExp) => outputs.filter((text) => pattern.test(text)).length / outputs.length;
    expect(share(/trinta e oito/)).toBeGreaterThan(0.35);
    expect(share(/38\.5/)).toBeGreaterThan(0.15);
    expect(share(/38,5/)).toBeGreaterThan(0.15);
    expect(share(/quilos/)).toBeGreaterThan(0.35);
    expect(share(/\bkg\b/)).toBeGreaterThan(0.35);
  });

  it('adds fillers and repeats words, never inside a number said in words', () => {
    const long = Array.from({ length: 400 }, () => 'o tutor relata cento e quarenta episódios').join(' ');
    const noisy = noisySentence(long, random(11), { seed: 0 });
    expect(noisy).toMatch(/\b(né|tá|aí|então|tipo|é)\b/);
    expect(noisy).toMatch(/\b(\S+) \1\b/);
    expect(noisy).not.toMatch(/cento (né|tá|aí|então|tipo|é|e e|cento)/);
  });

  it('spells numbers in pt-BR words', () => {
    expect([0, 12, 38, 100, 104, 180, 950, 1000, 2024].map(numberWords)).toEqual([
      'zero',
      'doze',
      'trinta e oito',
      'cem',
      'cento e quatro',
      'cento e oitenta',
      'novecentos e cinquenta',
      'mil',
      'dois mil e vinte e quatro',
    ]);
  });

  it('mishears a drug name by one small change, recorded', () => {
    const misspelled: { drug: string; said: string }[] = [];
    noisySentence('carprofeno e meloxicam', random(1), { seed: 0, misspellDrugs: 1 }, misspelled);
    expect(misspelled.map((m) => m.drug)).toEqual(['carprofeno', 'meloxicam']);
    for (const { drug, said } of misspelled) expect(said).not.toBe(drug);
    expect(misheardSpelling('carprofeno', random(5))).not.toBe('carprofeno');
  });
});
