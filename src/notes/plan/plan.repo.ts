import type { Db } from '../../platform/db/client.ts';
import { and, asc, count, eq, gte, lte, sql } from '../../platform/db/drizzle.ts';
import { noteFollowUps, notes } from '../../platform/db/schema/index.ts';
import type { Plan } from '../store/plan.schemas.ts';

/**
 * The note's rows of the worklist, in step with `plan`: its follow-ups that have a due date, one row
 * each. Run in the transaction that writes the plan (completion, an edit, PUT /plan).
 */
export async function replaceFollowUps(noteId: string, clinicId: string, plan: Plan, tx: Db): Promise<void> {
  await tx.delete(noteFollowUps).where(eq(noteFollowUps.noteId, noteId));
  const due = plan.follow_ups.flatMap((item, position) =>
    item.due_date === null
      ? []
      : [{ itemId: item.id, noteId, clinicId, dueDate: item.due_date, position, kind: item.kind, text: item.text }],
  );
  if (due.length > 0) await tx.insert(noteFollowUps).values(due);
}

/** Replaces the note's plan (and its worklist rows); the note's `updated_at` moves, as an edit moves it. */
export async function savePlan(noteId: string, clinicId: string, plan: Plan, tx: Db): Promise<void> {
  await tx.update(notes).set({ plan, updatedAt: sql`now()` }).where(eq(notes.id, noteId));
  await replaceFollowUps(noteId, clinicId, plan, tx);
}

/** What re-reading a note's plan needs of its row. */
export async function planFactsOf(noteId: string, db: Db) {
  const [row] = await db
    .select({
      clinicId: notes.clinicId,
      transcriptionStatus: notes.transcriptionStatus,
      plan: notes.plan,
      visitDate: notes.visitDate,
      createdAt: notes.createdAt,
      vitals: notes.vitals,
    })
    .from(notes)
    .where(eq(notes.id, noteId));
  return row && { ...row, plan: row.plan as Plan | null };
}

export interface DueFollowUpRow {
  noteId: string;
  externalId: string | null;
  name: string;
  species: string | null;
  kind: string;
  dueDate: string;
  text: string;
}

const dueIn = (clinicId: string, from: string, to: string) =>
  and(eq(noteFollowUps.clinicId, clinicId), gte(noteFollowUps.dueDate, from), lte(noteFollowUps.dueDate, to));

/** A page of the clinic's follow-ups due between `from` and `to` (inclusive), oldest due first; one index range (clinic, day). */
export async function dueFollowUps(
  clinicId: string,
  range: { from: string; to: string },
  page: { limit: number; offset: number },
  db: Db,
): Promise<DueFollowUpRow[]> {
  return db
    .select({
      noteId: noteFollowUps.noteId,
      externalId: notes.externalId,
      name: notes.name,
      species: notes.species,
      kind: noteFollowUps.kind,
      dueDate: noteFollowUps.dueDate,
      text: noteFollowUps.text,
    })
    .from(noteFollowUps)
    .innerJoin(notes, eq(notes.id, noteFollowUps.noteId))
    .where(dueIn(clinicId, range.from, range.to))
    .orderBy(asc(noteFollowUps.dueDate), asc(noteFollowUps.noteId), asc(noteFollowUps.position))
    .limit(page.limit)
    .offset(page.offset);
}

export async function countDueFollowUps(clinicId: string, range: { from: string; to: string }, db: Db): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(noteFollowUps)
    .where(dueIn(clinicId, range.from, range.to));
  return row?.total ?? 0;
}
