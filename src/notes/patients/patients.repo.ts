import type { Db } from '../../platform/db/client.ts';
import { and, asc, count, desc, eq, inArray, isNotNull, lt, ne, type SQL, sql } from '../../platform/db/drizzle.ts';
import { escapeLike } from '../../platform/db/like.ts';
import { noteSections, notes, type StoredTemplate } from '../../platform/db/schema/index.ts';
import type { PlanFollowUp, PlanMedication } from '../store/plan.schemas.ts';

const patientNoteColumns = {
  id: notes.id,
  name: notes.name,
  species: notes.species,
  transcriptionStatus: notes.transcriptionStatus,
  recordStatus: notes.recordStatus,
  visitDate: notes.visitDate,
  createdAt: notes.createdAt,
  template: notes.template,
  vitals: notes.vitals,
  plan: notes.plan,
};

export type PatientNoteRow = Awaited<ReturnType<typeof patientNotes>>[number];

/** Every note of the clinic with this external id, newest first (notes_clinic_external_idx; a patient has tens). */
export async function patientNotes(clinicId: string, externalId: string, db: Db) {
  return db
    .select(patientNoteColumns)
    .from(notes)
    .where(and(eq(notes.clinicId, clinicId), eq(notes.externalId, externalId)))
    .orderBy(desc(notes.createdAt), desc(notes.id));
}

/** The sections of these notes with one of these labels: the diagnosis sections a history shows. */
export async function sectionsLabelled(noteIds: string[], labels: string[], db: Db) {
  if (noteIds.length === 0 || labels.length === 0) return [];
  return db
    .select({ noteId: noteSections.noteId, label: noteSections.label, content: noteSections.content })
    .from(noteSections)
    .where(and(inArray(noteSections.noteId, noteIds), inArray(noteSections.label, labels)))
    .orderBy(asc(noteSections.position));
}

/** The clinic's patients: notes with an external id, optionally whose name or external id holds `q`. */
function patientNotesWhere(clinicId: string, q: string | undefined): SQL {
  const conditions: SQL[] = [eq(notes.clinicId, clinicId), isNotNull(notes.externalId)];
  if (q) {
    const pattern = sql`'%' || vetflow_fold(${escapeLike(q)}) || '%'`;
    conditions.push(sql`(${notes.nameFolded} like ${pattern} or vetflow_fold(${notes.externalId}) like ${pattern})`);
  }
  return and(...conditions) as SQL;
}

/**
 * One page of the clinic's patients, the latest visit first (patients without a visit date last,
 * then by external id): per external id its newest note's name, the species of its newest note that
 * has one, how many notes and the latest visit date.
 */
export async function patientPage(clinicId: string, q: string | undefined, page: { limit: number; offset: number }, db: Db) {
  const lastVisit = sql<string | null>`max(${notes.visitDate})::text`;
  const rows = await db
    .select({
      externalId: sql<string>`${notes.externalId}`,
      name: sql<string>`(array_agg(${notes.name} order by ${notes.createdAt} desc, ${notes.id} desc))[1]`,
      species: sql<
        string | null
      >`(array_agg(${notes.species} order by ${notes.createdAt} desc, ${notes.id} desc) filter (where ${notes.species} is not null))[1]`,
      notes: count(),
      lastVisit,
    })
    .from(notes)
    .where(patientNotesWhere(clinicId, q))
    .groupBy(notes.externalId)
    .orderBy(sql`max(${notes.visitDate}) desc nulls last`, asc(notes.externalId))
    .limit(page.limit)
    .offset(page.offset);
  return rows.map((row) => ({ ...row, notes: Number(row.notes) }));
}

/** How many patients `patientPage` pages through. */
export async function countPatients(clinicId: string, q: string | undefined, db: Db): Promise<number> {
  const [row] = await db
    .select({ total: sql<number>`count(distinct ${notes.externalId})`.mapWith(Number) })
    .from(notes)
    .where(patientNotesWhere(clinicId, q));
  return row?.total ?? 0;
}

/** An earlier signed note of a patient, as a completing note reads it. */
export interface SignedVisitRow {
  noteId: string;
  visitDate: string | null;
  template: StoredTemplate | null;
  medications: PlanMedication[];
  followUps: PlanFollowUp[];
}

/**
 * The patient's signed notes (signed or amended) created before `note`, newest first, with their
 * plans: what a completing note is compared with (changes-since-last-visit.ts) and, for a clinical
 * draft, the last one as context (previous-visit.ts). At most `most`: `resumed` looks that far back.
 */
export async function signedVisitsBefore(
  note: { id: string; clinicId: string; externalId: string; createdAt: Date },
  db: Db,
  most = 20,
): Promise<SignedVisitRow[]> {
  const rows = await db
    .select({ id: notes.id, plan: notes.plan, visitDate: notes.visitDate, template: notes.template })
    .from(notes)
    .where(
      and(
        eq(notes.clinicId, note.clinicId),
        eq(notes.externalId, note.externalId),
        inArray(notes.recordStatus, ['signed', 'amended']),
        ne(notes.id, note.id),
        lt(notes.createdAt, note.createdAt),
      ),
    )
    .orderBy(desc(notes.createdAt), desc(notes.id))
    .limit(most);
  return rows.map((row) => ({
    noteId: row.id,
    visitDate: row.visitDate,
    template: row.template,
    medications: (row.plan?.medications ?? []) as PlanMedication[],
    followUps: (row.plan?.follow_ups ?? []) as PlanFollowUp[],
  }));
}
