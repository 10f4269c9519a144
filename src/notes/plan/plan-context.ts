// What a note's plan is read with besides its words (PlanContext): the visit date its follow-ups
// count from, the weight its per-kg doses are multiplied by, and the clinic's own drug names.

import type { StoredVital } from '../../platform/db/schema/index.ts';
import type { PlanContext } from './extract-plan.ts';

/** The day `at` falls on in `timeZone`, `YYYY-MM-DD`. */
export function dayIn(timeZone: string, at: Date): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** The weight among the note's vitals (kg): the first one said as a plain value ("pesa 32,4 kg", not "menos de 5 kg"). */
export function weightOf(vitals: readonly Pick<StoredVital, 'code' | 'value' | 'comparator'>[]): number | null {
  const weight = vitals.find((vital) => vital.code === 'weight' && vital.comparator === null && typeof vital.value === 'number');
  return weight ? (weight.value as number) : null;
}

export interface NotePlanFacts {
  visitDate: string | null;
  createdAt: Date;
  vitals: readonly Pick<StoredVital, 'code' | 'value' | 'comparator'>[];
}

/**
 * The context of a note's plan. A note made before visit dates existed has none: the day it was
 * created in the clinic's time zone, as a new note gets at creation.
 */
export function planContextOf(note: NotePlanFacts, clinic: { timezone: string; drugNames: readonly string[] }): PlanContext {
  return {
    visitDate: note.visitDate ?? dayIn(clinic.timezone, note.createdAt),
    weightKg: weightOf(note.vitals),
    clinicDrugNames: clinic.drugNames,
  };
}
