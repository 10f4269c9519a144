import type { Db } from '../../platform/db/client.ts';
import { and, asc, eq, inArray, sql } from '../../platform/db/drizzle.ts';
import { noteAmendments, noteSections, noteSignatures, notes } from '../../platform/db/schema/index.ts';
import type { NoteRow, SectionRow } from '../store/notes.repo.ts';
import type { AmendmentRow, SignatureRow } from '../store/record.repo.ts';

/** A note of the record as its index knows it: enough to count, order and hash the record. */
export interface RecordIndexRow {
  id: string;
  /** The last link of the note's hash chain (last amendment, else signature); null for a draft. */
  latestSha256: string | null;
  species: string | null;
  metadata: { key: string; value: string }[];
}

/**
 * Every completed note of one patient (external id) in the clinic, oldest first (ties by id), with
 * its latest chain hash. Small rows: a 200-note record is 200 ids and hashes.
 */
export async function recordIndex(clinicId: string, externalId: string, db: Db): Promise<RecordIndexRow[]> {
  return db
    .select({
      id: notes.id,
      // Written out with table names: drizzle renders a column of the selected table unqualified
      // inside sql``, where "id" would name the subquery's own column.
      latestSha256: sql<string | null>`coalesce(
        (select a.content_sha256 from note_amendments a where a.note_id = notes.id order by a.position desc limit 1),
        (select s.content_sha256 from note_signatures s where s.note_id = notes.id))`,
      species: notes.species,
      metadata: notes.metadata,
    })
    .from(notes)
    .where(and(eq(notes.clinicId, clinicId), eq(notes.externalId, externalId), eq(notes.transcriptionStatus, 'completed')))
    .orderBy(asc(notes.createdAt), asc(notes.id));
}

/** A batch of notes with what their record shows: sections, signature, amendments (oldest first). */
export interface RecordBatch {
  notes: NoteRow[];
  sections: SectionRow[];
  signatures: SignatureRow[];
  amendments: AmendmentRow[];
}

/** The notes with these ids and their record rows, in four statements whatever the batch's size. */
export async function recordBatch(ids: string[], db: Db): Promise<RecordBatch> {
  // One after the other: on a transaction the statements share one connection anyway.
  const noteRows = await db.select().from(notes).where(inArray(notes.id, ids));
  const sections = await db.select().from(noteSections).where(inArray(noteSections.noteId, ids));
  const signatures = await db.select().from(noteSignatures).where(inArray(noteSignatures.noteId, ids));
  const amendments = await db
    .select()
    .from(noteAmendments)
    .where(inArray(noteAmendments.noteId, ids))
    .orderBy(asc(noteAmendments.noteId), asc(noteAmendments.position));
  return { notes: noteRows, sections, signatures, amendments };
}
