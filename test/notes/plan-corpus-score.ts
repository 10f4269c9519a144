// The plan corpus (test/fixtures/plan-corpus/{tune,tune2,heldout,heldout2}/*.json, one consultation a file) and
// how an extraction is scored against it, shared by `npm run eval:plan` and the corpus test.
//
// Matching: an extracted medication matches a gold one with the same drug (folded) and status, one
// to one, in the order said. A field is right when the matched pair agrees on it; "every field
// right" when they agree on all of them (dose is value and unit together; computed_total within
// rounding: 0.01 or 0.5 %). Exams match by code, vaccines by code and status, follow-ups by kind,
// due_in_days and due_date.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fold } from '../../src/language/fold.ts';
import type { Plan, PlanMedication } from '../../src/notes/store/plan.schemas.ts';

export interface GoldMedication {
  drug: string;
  dose_value: number | null;
  dose_unit: string | null;
  route: string | null;
  interval_hours: number | null;
  duration_days: number | null;
  status: string;
  computed_total: { value: number; unit: string } | null;
  quote: string;
}

export interface CorpusCase {
  id: string;
  style: string;
  species: string;
  visit_date: string;
  weight_kg: number | null;
  segments: { start: number; end: number; text: string }[];
  plan: {
    medications: GoldMedication[];
    exams: { code: string; quote: string }[];
    vaccines: { code: string; status: string; quote: string }[];
    follow_ups: { kind: string; due_in_days: number | null; due_date: string | null; quote: string }[];
  };
  negatives: string[];
}

export const CORPUS_DIR = path.join(import.meta.dirname, '../fixtures/plan-corpus');
export const SPLITS = ['tune', 'tune2', 'heldout', 'heldout2'] as const;
export type Split = (typeof SPLITS)[number];
/** Splits nobody tunes on: their misses are never printed, only their aggregate figures. */
export const HELD_OUT: readonly Split[] = ['heldout', 'heldout2'];

export function loadPlanCorpus(split: Split): CorpusCase[] {
  const dir = path.join(CORPUS_DIR, split);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CorpusCase);
}

export interface Score {
  truePositives: number;
  /** Extracted. */
  found: number;
  /** In the gold plan. */
  gold: number;
}

export const precision = (score: Score) => (score.found === 0 ? 1 : score.truePositives / score.found);
export const recall = (score: Score) => (score.gold === 0 ? 1 : score.truePositives / score.gold);

export const MEDICATION_FIELDS = ['drug', 'dose', 'route', 'interval', 'duration', 'status', 'computed_total'] as const;
export type MedicationField = (typeof MEDICATION_FIELDS)[number];

const drugKey = (drug: string) => fold(drug).trim().replace(/\s+/g, ' ');

function totalsAgree(a: PlanMedication['computed_total'], b: GoldMedication['computed_total']): boolean {
  if (a === null || b === null) return a === b;
  return a.unit === b.unit && Math.abs(a.value - b.value) <= Math.max(0.01, Math.abs(b.value) * 0.005);
}

function fieldRight(field: MedicationField, found: PlanMedication, gold: GoldMedication): boolean {
  switch (field) {
    case 'drug':
      return drugKey(found.drug) === drugKey(gold.drug);
    case 'dose':
      return found.dose_value === gold.dose_value && found.dose_unit === gold.dose_unit;
    case 'route':
      return found.route === gold.route;
    case 'interval':
      return found.interval_hours === gold.interval_hours;
    case 'duration':
      return found.duration_days === gold.duration_days;
    case 'status':
      return found.status === gold.status;
    case 'computed_total':
      return totalsAgree(found.computed_total, gold.computed_total);
  }
}

/** One-to-one pairs, each extracted item with the first unmatched gold item it matches. */
function pairs<F, G>(found: F[], gold: G[], match: (f: F, g: G) => boolean): [F, G][] {
  const taken = new Set<number>();
  const matched: [F, G][] = [];
  for (const item of found) {
    const index = gold.findIndex((candidate, i) => !taken.has(i) && match(item, candidate));
    if (index < 0) continue;
    taken.add(index);
    matched.push([item, gold[index]!]);
  }
  return matched;
}

export interface CaseScore {
  medications: Score;
  everyField: Score;
  fields: Record<MedicationField, Score>;
  exams: Score;
  vaccines: Score;
  followUps: Score;
  /** What was missed or added, for MISSES=1. */
  misses: string[];
}

const empty = (found: number, gold: number): Score => ({ truePositives: 0, found, gold });

export function scoreCase(item: CorpusCase, plan: Plan): CaseScore {
  const misses: string[] = [];
  const gold = item.plan;
  const sameMedication = (f: PlanMedication, g: GoldMedication) => drugKey(f.drug) === drugKey(g.drug) && f.status === g.status;
  const medicationPairs = pairs(plan.medications, gold.medications, sameMedication);
  const medications = { truePositives: medicationPairs.length, found: plan.medications.length, gold: gold.medications.length };
  const allRight = medicationPairs.filter(([f, g]) => MEDICATION_FIELDS.every((field) => fieldRight(field, f, g)));
  const everyField = { truePositives: allRight.length, found: plan.medications.length, gold: gold.medications.length };

  // Fields are scored on pairs matched by drug alone, so a wrong status still shows as a status error.
  const byDrug = pairs(plan.medications, gold.medications, (f, g) => drugKey(f.drug) === drugKey(g.drug));
  const fields = Object.fromEntries(
    MEDICATION_FIELDS.map((field) => [
      field,
      {
        truePositives: byDrug.filter(([f, g]) => fieldRight(field, f, g)).length,
        found: plan.medications.length,
        gold: gold.medications.length,
      },
    ]),
  ) as Record<MedicationField, Score>;

  const show = (m: PlanMedication | GoldMedication) =>
    `${m.drug} ${m.dose_value ?? '-'} ${m.dose_unit ?? '-'} ${m.route ?? '-'} q${m.interval_hours ?? '-'}h ${m.duration_days ?? '-'}d ${m.status} ${m.computed_total ? `${m.computed_total.value}${m.computed_total.unit}` : '-'}`;
  for (const f of plan.medications) {
    const pair = byDrug.find(([found]) => found === f);
    if (!pair) misses.push(`  + medication ${show(f)}  «${f.text}»`);
    else if (!MEDICATION_FIELDS.every((field) => fieldRight(field, f, pair[1]))) {
      const wrong = MEDICATION_FIELDS.filter((field) => !fieldRight(field, f, pair[1]));
      misses.push(`  ~ medication ${wrong.join(',')}: got ${show(f)} want ${show(pair[1])}  «${f.text}»`);
    }
  }
  for (const g of gold.medications) if (!byDrug.some(([, gg]) => gg === g)) misses.push(`  - medication ${show(g)}  «${g.quote}»`);

  const examPairs = pairs(plan.exams, gold.exams, (f, g) => f.code === g.code);
  const vaccinePairs = pairs(plan.vaccines, gold.vaccines, (f, g) => f.code === g.code && f.status === g.status);
  const followUpPairs = pairs(
    plan.follow_ups,
    gold.follow_ups,
    (f, g) => f.kind === g.kind && f.due_in_days === g.due_in_days && f.due_date === g.due_date,
  );
  for (const [name, list, matched, goldList, label] of [
    ['exam', plan.exams, examPairs, gold.exams, (x: { code: string }) => x.code],
    ['vaccine', plan.vaccines, vaccinePairs, gold.vaccines, (x: { code: string; status: string }) => `${x.code} ${x.status}`],
    [
      'follow-up',
      plan.follow_ups,
      followUpPairs,
      gold.follow_ups,
      (x: { kind: string; due_in_days: number | null }) => `${x.kind} ${x.due_in_days}`,
    ],
  ] as const) {
    for (const f of list as { text?: string }[])
      if (!(matched as unknown[][]).some(([found]) => found === f))
        misses.push(`  + ${name} ${(label as (x: unknown) => string)(f)}  «${f.text}»`);
    for (const g of goldList as { quote: string }[])
      if (!(matched as unknown[][]).some(([, gg]) => gg === g))
        misses.push(`  - ${name} ${(label as (x: unknown) => string)(g)}  «${g.quote}»`);
  }
  return {
    medications,
    everyField,
    fields,
    exams: { truePositives: examPairs.length, found: plan.exams.length, gold: gold.exams.length },
    vaccines: { truePositives: vaccinePairs.length, found: plan.vaccines.length, gold: gold.vaccines.length },
    followUps: { truePositives: followUpPairs.length, found: plan.follow_ups.length, gold: gold.follow_ups.length },
    misses,
  };
}

const add = (a: Score, b: Score): Score => ({
  truePositives: a.truePositives + b.truePositives,
  found: a.found + b.found,
  gold: a.gold + b.gold,
});

export type SplitScore = Omit<CaseScore, 'misses'> & { misses: { id: string; lines: string[] }[] };

export function scoreSplit(cases: CorpusCase[], extract: (item: CorpusCase) => Plan): SplitScore {
  const total: SplitScore = {
    medications: empty(0, 0),
    everyField: empty(0, 0),
    fields: Object.fromEntries(MEDICATION_FIELDS.map((field) => [field, empty(0, 0)])) as Record<MedicationField, Score>,
    exams: empty(0, 0),
    vaccines: empty(0, 0),
    followUps: empty(0, 0),
    misses: [],
  };
  for (const item of cases) {
    const score = scoreCase(item, extract(item));
    total.medications = add(total.medications, score.medications);
    total.everyField = add(total.everyField, score.everyField);
    for (const field of MEDICATION_FIELDS) total.fields[field] = add(total.fields[field], score.fields[field]);
    total.exams = add(total.exams, score.exams);
    total.vaccines = add(total.vaccines, score.vaccines);
    total.followUps = add(total.followUps, score.followUps);
    if (score.misses.length > 0) total.misses.push({ id: item.id, lines: score.misses });
  }
  return total;
}

/** The transcript of a case as the pipeline hands it over: the segments, and their texts joined by a space. */
export function transcriptOf(item: CorpusCase) {
  return { text: item.segments.map((segment) => segment.text).join(' '), segments: item.segments };
}

export function contextOf(item: CorpusCase, clinicDrugNames: readonly string[] = []) {
  return { visitDate: item.visit_date, weightKg: item.weight_kg, clinicDrugNames };
}
