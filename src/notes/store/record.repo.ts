import type { Db } from '../../platform/db/client.ts';
import { and, asc, desc, eq, sql } from '../../platform/db/drizzle.ts';
import { noteAmendments, noteSections, noteSignatures, notes } from '../../platform/db/schema/index.ts';
import type { SectionRow } from './notes.repo.ts';

export type SignatureRow = typeof noteSignatures.$inferSelect;
export type AmendmentRow = typeof noteAmendments.$inferSelect;
export type RecordStatus = (typeof notes.$inferSelect)['recordStatus'];

const recordColumns = {
  id: notes.id,
  clinicId: notes.clinicId,
  transcriptionStatus: notes.transcriptionStatus,
  recordStatus: notes.recordStatus,
  reviewFlags: notes.reviewFlags,
};

/**
 * The note's row locked until the transaction ends: every change to a note's record (sign, amend)
 * and every write a signature forbids (section edit, retry) takes this lock first and reads the
 * record status under it, so a signature and an edit never both win.
 */
export async function lockNoteRecord(id: string, tx: Db) {
  const [row] = await tx.select(recordColumns).from(notes).where(eq(notes.id, id)).for('update');
  return row;
}

/** The note's clinic, for the tenancy check of a read (no lock, no transcript). */
export async function findNoteOwner(id: string, db: Db): Promise<{ id: string; clinicId: string } | undefined> {
  const [row] = await db.select({ id: notes.id, clinicId: notes.clinicId }).from(notes).where(eq(notes.id, id));
  return row;
}

/** The note a section belongs to (no lock): a section edit locks that note before the section. */
export async function noteOfSection(sectionId: string, db: Db): Promise<string | undefined> {
  const [row] = await db.select({ noteId: noteSections.noteId }).from(noteSections).where(eq(noteSections.id, sectionId));
  return row?.noteId;
}

export async function setRecordStatus(id: string, status: RecordStatus, tx: Db): Promise<void> {
  await tx.update(notes).set({ recordStatus: status, updatedAt: sql`now()` }).where(eq(notes.id, id));
}

/** A section of the note `noteId`, locked; undefined when it does not exist or is another note's. */
export async function lockSectionOfNote(sectionId: string, noteId: string, tx: Db): Promise<SectionRow | undefined> {
  const [row] = await tx
    .select()
    .from(noteSections)
    .where(and(eq(noteSections.id, sectionId), eq(noteSections.noteId, noteId)))
    .for('update');
  return row;
}

export async function insertSignature(signature: SignatureRow, tx: Db): Promise<void> {
  await tx.insert(noteSignatures).values(signature);
}

export async function findSignature(noteId: string, db: Db): Promise<SignatureRow | undefined> {
  const [row] = await db.select().from(noteSignatures).where(eq(noteSignatures.noteId, noteId));
  return row;
}

export async function insertAmendment(amendment: typeof noteAmendments.$inferInsert, tx: Db): Promise<AmendmentRow> {
  const [row] = await tx.insert(noteAmendments).values(amendment).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

/** The last link of the note's amendment chain, if any. */
export async function lastAmendment(noteId: string, db: Db): Promise<AmendmentRow | undefined> {
  const [row] = await db
    .select()
    .from(noteAmendments)
    .where(eq(noteAmendments.noteId, noteId))
    .orderBy(desc(noteAmendments.position))
    .limit(1);
  return row;
}

export async function amendmentsOf(noteId: string, db: Db): Promise<AmendmentRow[]> {
  return db.select().from(noteAmendments).where(eq(noteAmendments.noteId, noteId)).orderBy(asc(noteAmendments.position));
}

/** The note's columns a version 2 hash covers besides its sections (notes/chain/covered-state.ts). */
export async function findCoveredRows(noteId: string, db: Db) {
  const [row] = await db
    .select({
      name: notes.name,
      externalId: notes.externalId,
      species: notes.species,
      vitals: notes.vitals,
      plan: notes.plan,
      recordStatus: notes.recordStatus,
    })
    .from(notes)
    .where(eq(notes.id, noteId));
  return row;
}
