import type { StoredTemplate } from '../../platform/db/schema/index.ts';
import { BASE_SECTIONS } from '../../providers/drafting/port.ts';
import type { PlanFollowUp, PlanMedication } from '../store/plan.schemas.ts';
import type { Species, Vital } from '../store/vitals.schemas.ts';
import type { PatientNoteRow } from './patients.repo.ts';

// A patient's history assembled from its notes: no row of its own, so it can never disagree with
// them. Every item keeps the note it was read from (`note_id`) and, from the note, where in that
// visit's audio it was said (`evidence`).

/** The label of the section holding the diagnosis in this template (padrao's for notes made before templates). */
export function diagnosisLabel(template: StoredTemplate | null): string | undefined {
  const sections = template?.sections ?? BASE_SECTIONS;
  return sections.find((section) => section.includes.includes('diagnosis'))?.label;
}

/** A plan as stored: the lists the history reads (null before the note completed, or before plans existed). */
function planOf(row: PatientNoteRow): { medications: PlanMedication[]; follow_ups: PlanFollowUp[] } {
  const plan = row.plan as { medications?: PlanMedication[]; follow_ups?: PlanFollowUp[] } | null;
  return { medications: plan?.medications ?? [], follow_ups: plan?.follow_ups ?? [] };
}

type WithNote<T> = T & { note_id: string };
const cited = <T extends object>(items: readonly T[], noteId: string): WithNote<T>[] => items.map((item) => ({ ...item, note_id: noteId }));

export interface PatientHistory {
  external_id: string;
  name: string;
  species: Species | null;
  notes: number;
  first_visit: string | null;
  last_visit: string | null;
  timeline: {
    note_id: string;
    visit_date: string | null;
    record_status: 'draft' | 'signed' | 'amended';
    diagnosis: string | null;
    medications: WithNote<PlanMedication>[];
    vitals: WithNote<Vital>[];
    follow_ups: WithNote<PlanFollowUp>[];
  }[];
  weights: { visit_date: string | null; kg: number; note_id: string }[];
  open_follow_ups: WithNote<PlanFollowUp>[];
}

/** Newest visit first; a note without a visit date by its creation. */
const byVisitDesc = (a: PatientNoteRow, b: PatientNoteRow) =>
  (b.visitDate ?? '').localeCompare(a.visitDate ?? '') || b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id);

/**
 * The history of one patient from all its notes (`rows`, any status), the text of their diagnosis
 * sections (`diagnoses`, by note id) and the clinic's day today (`YYYY-MM-DD`, its time zone).
 */
export function assembleHistory(externalId: string, rows: PatientNoteRow[], diagnoses: Map<string, string>, today: string): PatientHistory {
  const newest = rows[0];
  const visits = rows.filter((row) => row.transcriptionStatus === 'completed').sort(byVisitDesc);
  const timeline = visits.map((row) => {
    const plan = planOf(row);
    return {
      note_id: row.id,
      visit_date: row.visitDate,
      record_status: row.recordStatus,
      diagnosis: diagnoses.get(row.id) ?? null,
      medications: cited(plan.medications, row.id),
      // Stored as the API shows them (vitals.schemas.ts), codes and flags validated when written.
      vitals: cited(row.vitals as Vital[], row.id),
      follow_ups: cited(plan.follow_ups, row.id),
    };
  });
  const weights = visits
    .flatMap((row) =>
      row.vitals
        .filter((vital) => vital.code === 'weight' && typeof vital.value === 'number')
        .map((vital) => ({ visit_date: row.visitDate, kg: vital.value as number, note_id: row.id })),
    )
    .reverse();
  const dated = visits.map((row) => row.visitDate).filter((day): day is string => day !== null);
  return {
    external_id: externalId,
    name: newest?.name ?? '',
    species: (rows.find((row) => row.species !== null)?.species ?? null) as Species | null,
    notes: rows.length,
    first_visit: dated.at(-1) ?? null,
    last_visit: dated[0] ?? null,
    timeline,
    weights,
    open_follow_ups: openFollowUps(visits, today),
  };
}

/**
 * Follow-ups still to happen: due today or later, or overdue with no later visit of the patient
 * (a recheck that happened closes the overdue ones before it). Soonest due first.
 */
function openFollowUps(visits: PatientNoteRow[], today: string): WithNote<PlanFollowUp>[] {
  const lastVisit = visits.map((row) => row.visitDate).find((day) => day !== null) ?? null;
  return visits
    .flatMap((row) => {
      const laterVisit = lastVisit !== null && row.visitDate !== null && lastVisit > row.visitDate;
      return cited(planOf(row).follow_ups, row.id).filter(
        (followUp) => followUp.due_date !== null && (followUp.due_date >= today || !laterVisit),
      );
    })
    .sort((a, b) => (a.due_date ?? '').localeCompare(b.due_date ?? ''));
}
