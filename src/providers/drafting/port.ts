// Drafting a clinical note from a transcript, behind one small interface. A drafter writes
// concise pt-BR clinical prose under the note's sections and proves each sentence: it cites the
// transcript lines behind it, and what it cannot prove is flagged for the veterinarian.

import { SECTION_LABELS, SECTION_TITLES, type SectionLabel } from '../sectioning/port.ts';

export const NOTE_STYLES = ['verbatim', 'clinical'] as const;
export type NoteStyle = (typeof NOTE_STYLES)[number];

/** Seconds from the start of the audio. */
export interface TimeRange {
  start: number;
  end: number;
}

export const REVIEW_REASONS = [
  'ungrounded',
  'no_citation',
  'invalid_citation',
  'drafting_unavailable',
  'drafting_invalid',
  // Set by the Notes tree, not by a drafter: a drafted vital that differs from the one read from the transcript.
  'vital_mismatch',
  // Set by the Notes tree too: a drafted drug, dose or interval that differs from the plan read from the transcript.
  'plan_mismatch',
  // Set by the Notes tree too: a medication whose dose or interval differs from the patient's last signed note.
  'changed_since_last_visit',
  'capture_auto_closed',
  'simulated_transcript',
  // Set by the Notes tree: a transcript word that may be a drug name the speech-to-text model misheard.
  'possible_drug_misrecognition',
] as const;
export type ReviewReason = (typeof REVIEW_REASONS)[number];

/**
 * Something the veterinarian must look at before signing. `section`/`sentence` name the drafted
 * sentence (null for the drafting_* reasons and `simulated_transcript`, which concern the whole note); `token` is what could
 * not be found in the cited transcript lines (a number, unit, frequency, drug or side), or the
 * out-of-range line number of an `invalid_citation`.
 */
export interface ReviewFlag {
  /** The label of the template section the sentence was drafted for. */
  section: string | null;
  sentence: string | null;
  reason: ReviewReason;
  token: string | null;
  /** `possible_drug_misrecognition` only: the words as transcribed ("carpofeno"). */
  said?: string;
  /** `possible_drug_misrecognition` only: the lexicon drug they resemble ("carprofeno"). */
  suggestion?: string;
  /** `possible_drug_misrecognition` only: when they were said (null without timed segments). */
  evidence?: TimeRange | null;
}

export interface DraftedSection {
  /** A label of the note's template. */
  label: string;
  title: string;
  /** The kept sentences joined by a space. */
  content: string;
  /** The time ranges of the transcript lines the kept sentences cite, in time order. */
  evidence: TimeRange[];
}

/**
 * A section the note is written under (a section of its template): its label and pt-BR title, the
 * base labels of the labelling conventions it gathers (none: the drafter writes it from its
 * instructions alone) and what the clinic wants written there.
 */
export interface TemplateSection {
  label: string;
  title: string;
  includes: SectionLabel[];
  instructions: string | null;
}

/** The six base sections, each gathering its own label: the note as it is written without a template. */
export const BASE_SECTIONS: readonly TemplateSection[] = SECTION_LABELS.map((label) => ({
  label,
  title: SECTION_TITLES[label],
  includes: [label],
  instructions: null,
}));

export interface DraftingInput {
  text: string;
  segments: { start: number; end: number; text: string }[];
  language: string | null;
  /** The sections to draft, in display order; the six base sections when absent. */
  sections?: readonly TemplateSection[];
  /**
   * The patient's last signed note, for a returning patient: context the model may read (what was
   * diagnosed and prescribed then), marked as previous. Nothing from it was said today: the
   * grounding check reads today's transcript only, so a sentence drawn from it is flagged.
   */
  previous?: PreviousVisit | null;
}

/** What the drafter is told of the patient's last signed visit. */
export interface PreviousVisit {
  visitDate: string | null;
  diagnosis: string | null;
  /** The plan as it was written: one line per medication or follow-up. */
  plan: string[];
}

export type DraftOutcome =
  | { ok: true; sections: DraftedSection[]; flags: ReviewFlag[] }
  /**
   * No usable draft: the caller writes the note verbatim. `flags` start with the drafting_* flag
   * saying why; `code`/`message` are for the log and never hold the key or transcript text.
   */
  | { ok: false; code: string; message: string; flags: ReviewFlag[] };

/** A text to put in plain words for a lay reader (the owner summary), keeping every fact as it is. */
export interface RewriteInput {
  text: string;
  /** What the rewrite must keep (a length bound, the facts it may not change). */
  instructions: string;
}

export type RewriteOutcome = { ok: true; text: string } | { ok: false; code: string; message: string };

/**
 * The grounding check (grounding/check.ts) as a port: what `text` states — numbers, doses, units,
 * frequencies, durations, drugs, sides — that `source` does not say, as `text` wrote it, once each.
 */
export type GroundingCheck = (text: string, source: string) => string[];

export interface Drafter {
  readonly name: string;
  /**
   * Rewrites a text in plain words (the owner summary's `plain` style). Never throws for a
   * misbehaving server; the caller checks the answer's grounding before using it.
   */
  rewrite?(input: RewriteInput, signal: AbortSignal): Promise<RewriteOutcome>;
  /**
   * Never throws for a misbehaving model or server (that is a `{ ok: false }` outcome); throws only
   * when `signal` is aborted, so the job can hand the note to another worker.
   */
  draft(input: DraftingInput, signal: AbortSignal): Promise<DraftOutcome>;
}
