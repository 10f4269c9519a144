// The plan of a consultation read from its words (docs/notes-plan-extraction.md): medications,
// exams, vaccines and follow-ups, each with the words it came from and, with timed segments, when
// they were said. Deterministic, in pt-BR, no language model: nothing in an item that the words do
// not say. The readers live beside this file (medications.ts, exams.ts, vaccines.ts,
// follow-ups.ts); this one joins the segments, runs them and builds the items.

import { randomUUID } from 'node:crypto';
import type { Plan, PlanFollowUp, PlanMedication } from '../store/plan.schemas.ts';
import { evidenceOf, type PlacedSegment, placeSegments, quote, type Ranges } from './evidence.ts';
import { examMentions, findExams } from './exams.ts';
import { findFollowUps } from './follow-ups.ts';
import { drugTable } from './lexicon/lexicon.ts';
import { misheardDrugs } from './lexicon/misheard-drugs.ts';
import { findMedications, findMentions } from './medications.ts';
import { wordsOf } from './tokens.ts';
import { findVaccines, vaccineMentions } from './vaccines.ts';

export interface PlanContext {
  /** `YYYY-MM-DD`: follow-ups' due dates count from it. */
  visitDate: string;
  /** The weight among the note's vitals (kg), for per-kg doses' `computed_total`; null without one. */
  weightKg: number | null;
  /** The clinic's own drug names (settings `drug_names`), added to the built-in lexicon. */
  clinicDrugNames: readonly string[];
}

export interface TranscriptText {
  text: string;
  segments: { start: number; end: number; text: string; speaker?: string }[];
}

/** Items a list holds at most (PlanSchema). */
export const MAX_ITEMS = 100;

/** Longer input is read up to here: a consultation is far shorter, and the work stays bounded. */
export const MAX_CHARACTERS = 400_000;

/** The plan of a transcript; with timed segments every item's evidence is the time range that said it. */
export function planOfTranscript(transcript: TranscriptText, context: PlanContext): Plan {
  const timed = transcript.segments.some((segment) => segment.text.trim() !== '');
  const { text: joined, placed } = timed ? placeSegments(transcript.segments) : { text: transcript.text, placed: [] as PlacedSegment[] };
  const text = joined.slice(0, MAX_CHARACTERS);
  const w = wordsOf(text);
  // A drug name the speech-to-text model may have misheard is read as the drug it resembles (and
  // flagged for the vet: misheard-flags.ts).
  const table = drugTable(context.clinicDrugNames, misheardDrugs(w, context.clinicDrugNames));

  const drugMentions = findMentions(text, w, table);
  const drugWords = new Set(drugMentions.flatMap((mention) => range(mention.first, mention.end)));
  // A word inside a longer drug name is not an exam's or a vaccine's ("bicarbonato de sódio",
  // "borogluconato de cálcio"); a name that is both ("cálcio") stays both, each list reads its cues.
  const inDrug = (mention: { first: number; end: number }) =>
    drugMentions.some(
      (drug) => drug.first <= mention.first && mention.end <= drug.end && drug.end - drug.first > mention.end - mention.first,
    );
  const exams = examMentions(w.words).filter((mention) => !inDrug(mention));
  const vaccines = vaccineMentions(w).filter((mention) => !inDrug(mention));
  const vaccineWords = new Set(vaccines.flatMap((mention) => range(mention.first, mention.end)));
  const examWords = new Set(exams.flatMap((mention) => range(mention.first, mention.end)));
  const followUpsFound = findFollowUps(
    w,
    context.visitDate,
    (at) => vaccineWords.has(at),
    (at) => drugWords.has(at),
    (at) => examWords.has(at),
  );
  // Another topic ends a drug's reach: an exam, a vaccine or a return said after it.
  const stops = new Set<number>([...exams.map((mention) => mention.first), ...vaccines.map((mention) => mention.first)]);
  for (let k = 0; k < w.words.length; k++) if (isTopicFollowUp(w.words, k)) stops.add(k);
  const clauses = followUpsFound.filter((found) => found.dueInDays !== null);
  const inFollowUp = (at: number) => clauses.some((clause) => clause.purposeFrom <= at && at < clause.end);

  const item = (used: number[]) => {
    const quoted = quote(text, w, used);
    return { id: randomUUID(), text: quoted.text, evidence: evidenceOf(quoted.ranges as Ranges, placed) };
  };

  const medications: PlanMedication[] = findMedications(text, w, table, stops).map((found) => ({
    ...item(found.used),
    drug: found.drug,
    dose_value: found.dose_value,
    dose_unit: found.dose_unit,
    route: found.route,
    interval_hours: found.interval_hours,
    duration_days: found.duration_days,
    status: found.status,
    computed_total: computedTotal(found.dose_value, found.dose_unit, context.weightKg),
  }));
  const planExams = findExams(w, exams, inFollowUp).map((found) => ({ ...item(found.used), code: found.code }));
  const planVaccines = findVaccines(w, vaccines).map((found) => ({
    ...item(found.used),
    code: found.code,
    status: found.status,
  }));
  const followUps: PlanFollowUp[] = followUpsFound.map((found) => ({
    ...item(found.used),
    kind: found.kind,
    due_in_days: found.dueInDays,
    due_date: found.dueInDays === null ? null : addDays(context.visitDate, found.dueInDays),
  }));
  // The contract holds at most MAX_ITEMS a list; a consultation says far fewer, a hostile text keeps its first.
  return {
    medications: medications.slice(0, MAX_ITEMS),
    exams: planExams.slice(0, MAX_ITEMS),
    vaccines: planVaccines.slice(0, MAX_ITEMS),
    follow_ups: followUps.slice(0, MAX_ITEMS),
  };
}

/** The plan of a text without times (an edited section, a drafted note): evidence null. */
export function planOfText(text: string, context: PlanContext): Plan {
  return planOfTranscript({ text, segments: [] }, context);
}

const range = (first: number, end: number) => Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);

/** Follow-up words that plainly open another topic (not "volta"/"traz", which also say other things). */
function isTopicFollowUp(words: readonly string[], at: number): boolean {
  return ['retorno', 'retornar', 'retorne', 'revisao', 'reavaliacao', 'reavaliar', 'reforco'].includes(words[at]!);
}

const PER_KG: Record<string, string> = { 'mg/kg': 'mg', 'mcg/kg': 'mcg', 'ml/kg': 'ml', 'UI/kg': 'UI' };

/**
 * A per-kg dose times the weight: 0.1 mg/kg × 32.4 kg = 3.24 mg. Rounded to two decimals, half up,
 * after the product is cleared of floating-point noise (0.5 × 0.85 = 0.425 → 0.43, not 0.42).
 */
export function computedTotal(value: number | null, unit: string | null, weightKg: number | null): PlanMedication['computed_total'] {
  if (value === null || unit === null || weightKg === null || !(weightKg > 0)) return null;
  const totalUnit = PER_KG[unit];
  if (!totalUnit) return null;
  const total = Number((value * weightKg).toPrecision(12));
  return { value: Math.round(total * 100) / 100, unit: totalUnit };
}

/** `YYYY-MM-DD` plus whole days, on the calendar (no time zone involved). */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const moved = new Date(Date.UTC(year, month - 1, day + days));
  return moved.toISOString().slice(0, 10);
}
