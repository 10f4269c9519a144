// The vitals corpus: consultations written for these tests in the three transcript styles
// (dictation with spoken headings, natural dictation, vet–tutor dialogue), for dogs, cats, horses,
// cattle, small ruminants, rabbits, rodents and birds, each with every vital a vet would read from
// it and nothing else (doses, days, ages, lab values, prices, grades, feed weights are not vitals).
// `tuning.json` was looked at while the extractor was written; `held-out.json` was written after
// it and not tuned against. Expected vitals are compact: "temperature=39.8", "capillary_refill_time<2",
// "body_condition_score=3/5", "mucous_membranes=pale".

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Species } from '../../../src/notes/store/vitals.schemas.ts';

export interface CorpusCase {
  id: string;
  style: 'headings' | 'natural' | 'dialogue';
  species: Species | null;
  text: string;
  vitals: string[];
}

export function loadVitalsCorpus(part: 'tuning' | 'held-out'): CorpusCase[] {
  return JSON.parse(readFileSync(path.join(import.meta.dirname, `${part}.json`), 'utf8'));
}

/** A vital in the corpus' compact form. */
export function compact(vital: { code: string; value: number | string; unit: string | null; comparator: string | null }): string {
  const scale = vital.code === 'body_condition_score' ? vital.unit : '';
  return `${vital.code}${vital.comparator ?? '='}${vital.value}${scale}`;
}

export interface Score {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
}

/** Per code: what was found against what the case says (each expected vital matched once). */
export function scoreCases(cases: CorpusCase[], found: (text: string) => string[]) {
  const perCode = new Map<string, Score>();
  const misses: { id: string; missing: string[]; extra: string[] }[] = [];
  const codeOf = (item: string) => item.match(/^[a-z_]+/)![0];
  const score = (code: string) => {
    if (!perCode.has(code)) perCode.set(code, { truePositives: 0, falsePositives: 0, falseNegatives: 0 });
    return perCode.get(code)!;
  };
  for (const item of cases) {
    const expected = [...item.vitals];
    const extra: string[] = [];
    for (const vital of found(item.text)) {
      const at = expected.indexOf(vital);
      if (at >= 0) {
        expected.splice(at, 1);
        score(codeOf(vital)).truePositives++;
      } else {
        extra.push(vital);
        score(codeOf(vital)).falsePositives++;
      }
    }
    for (const vital of expected) score(codeOf(vital)).falseNegatives++;
    if (expected.length > 0 || extra.length > 0) misses.push({ id: item.id, missing: expected, extra });
  }
  return { perCode, misses };
}

export const precision = (score: Score) =>
  score.truePositives + score.falsePositives === 0 ? 1 : score.truePositives / (score.truePositives + score.falsePositives);
export const recall = (score: Score) =>
  score.truePositives + score.falseNegatives === 0 ? 1 : score.truePositives / (score.truePositives + score.falseNegatives);

export function total(perCode: Map<string, Score>): Score {
  const sum = { truePositives: 0, falsePositives: 0, falseNegatives: 0 };
  for (const score of perCode.values()) {
    sum.truePositives += score.truePositives;
    sum.falsePositives += score.falsePositives;
    sum.falseNegatives += score.falseNegatives;
  }
  return sum;
}
