import type { StoredPlan, StoredVital } from '../../platform/db/schema/index.ts';

// What a version 2 link of the hash chain covers of the note (docs/notes-record.md, "The hash
// chain"): the patient, the sections, the vitals and the plan, in the canonical shape the hash is
// computed over. Built from the rows when a link is written, stored with it, and carried by the
// exports so that a link can be recomputed without the database.

export interface CoveredSection {
  label: string;
  title: string;
  content: string;
  order: string;
}

export interface CoveredVital {
  code: string;
  value: number | string;
  unit: string | null;
  comparator: string | null;
  text: string;
  flag: string | null;
}

/** A plan item without its `id` and `evidence` (an API handle and audio times, not what was decided). */
export type CoveredPlanItem = Record<string, unknown>;

export interface CoveredPlan {
  medications: CoveredPlanItem[];
  exams: CoveredPlanItem[];
  vaccines: CoveredPlanItem[];
  follow_ups: CoveredPlanItem[];
}

export interface CoveredPatient {
  name: string;
  external_id: string | null;
  species: string | null;
}

export interface CoveredState {
  patient: CoveredPatient;
  sections: CoveredSection[];
  vitals: CoveredVital[];
  plan: CoveredPlan;
}

/** The note's columns a version 2 link covers, as the rows hold them. */
export interface CoveredRows {
  name: string;
  externalId: string | null;
  species: string | null;
  vitals: readonly StoredVital[];
  plan: StoredPlan | null;
}

type SectionLike = { label: string; title: string; content: string; order: string; position?: number };

/** Sections in the order the API shows them: numeric `order`, then as stored. */
export function coveredSections(sections: readonly SectionLike[]): CoveredSection[] {
  return [...sections]
    .sort((a, b) => Number(a.order) - Number(b.order) || (a.position ?? 0) - (b.position ?? 0))
    .map(({ label, title, content, order }) => ({ label, title, content, order }));
}

export function coveredVitals(vitals: readonly StoredVital[]): CoveredVital[] {
  return vitals.map((vital) => ({
    code: vital.code,
    value: vital.value,
    unit: vital.unit ?? null,
    comparator: vital.comparator ?? null,
    text: vital.text,
    flag: vital.flag ?? null,
  }));
}

const withoutHandles = (item: Record<string, unknown>): CoveredPlanItem => {
  const { id: _id, evidence: _evidence, ...decided } = item;
  return decided;
};

/** A note completed before plans existed (null) shows empty lists, as the API shows it. */
export function coveredPlan(plan: StoredPlan | null): CoveredPlan {
  if (!plan) return { medications: [], exams: [], vaccines: [], follow_ups: [] };
  return {
    medications: (plan.medications ?? []).map(withoutHandles),
    exams: (plan.exams ?? []).map(withoutHandles),
    vaccines: (plan.vaccines ?? []).map(withoutHandles),
    follow_ups: (plan.follow_ups ?? []).map(withoutHandles),
  };
}

/** The state a link written now covers: the note's rows and its sections as they stand. */
export function coveredStateOf(note: CoveredRows, sections: readonly SectionLike[]): CoveredState {
  return {
    patient: { name: note.name, external_id: note.externalId, species: note.species },
    sections: coveredSections(sections),
    vitals: coveredVitals(note.vitals),
    plan: coveredPlan(note.plan),
  };
}
