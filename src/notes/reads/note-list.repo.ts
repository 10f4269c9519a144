import type { Db } from '../../platform/db/client.ts';
import { and, count, eq, gte, lt, type SQL, sql } from '../../platform/db/drizzle.ts';
import { escapeLike } from '../../platform/db/like.ts';
import { noteListVersions, notes } from '../../platform/db/schema/index.ts';
import { type NoteSummaryRow, noteColumnsWithoutTranscript } from '../store/notes.repo.ts';

/** What a note list may filter on, already validated (list-notes.ts). */
export interface NoteFilters {
  transcription_status?: NoteSummaryRow['transcriptionStatus'];
  name?: string;
  from?: string;
  to?: string;
  days?: number;
  external_id?: string;
}

/** The notes of one clinic that pass every filter given. */
export function noteFilters(clinicId: string, filters: NoteFilters): SQL {
  const conditions: SQL[] = [eq(notes.clinicId, clinicId)];
  if (filters.transcription_status) conditions.push(eq(notes.transcriptionStatus, filters.transcription_status));
  if (filters.external_id) conditions.push(eq(notes.externalId, filters.external_id));
  if (filters.name) conditions.push(sql`vetflow_fold(${notes.name}) like '%' || vetflow_fold(${escapeLike(filters.name)}) || '%'`);
  if (filters.from) conditions.push(gte(notes.createdAt, new Date(`${filters.from}T00:00:00Z`)));
  if (filters.to) conditions.push(lt(notes.createdAt, new Date(Date.parse(`${filters.to}T00:00:00Z`) + 86_400_000)));
  if (filters.days) conditions.push(gte(notes.createdAt, new Date(Date.now() - filters.days * 86_400_000)));
  return and(...conditions) as SQL;
}

/** One page of matching notes (without transcripts), newest first. */
export function notePage(where: SQL, page: { limit: number; offset: number }, db: Db): Promise<NoteSummaryRow[]> {
  return (
    db
      .select(noteColumnsWithoutTranscript)
      .from(notes)
      .where(where)
      // NULLS LAST, as notes_clinic_created_idx is built: plain DESC means NULLS FIRST, which that
      // index cannot return in order, so every page sorted all the matching rows (both columns are NOT NULL).
      .orderBy(sql`${notes.createdAt} desc nulls last`, sql`${notes.id} desc nulls last`)
      .limit(page.limit)
      .offset(page.offset)
  );
}

/** How many notes match, counting no further than `upTo` when given (then at most `upTo` + 1). */
export async function countNotes(where: SQL, upTo: number | undefined, db: Db): Promise<number> {
  if (upTo === undefined) {
    const [row] = await db.select({ total: count() }).from(notes).where(where);
    return Number(row?.total ?? 0);
  }
  const matching = db
    .select({ one: sql`1`.as('one') })
    .from(notes)
    .where(where)
    .limit(upTo + 1)
    .as('matching');
  const [row] = await db.select({ total: count() }).from(matching);
  return Number(row?.total ?? 0);
}

/**
 * The clinic's notes-list version (note_list_versions, kept by note-list-version.sql's triggers):
 * 0 while none of its notes has changed since those triggers exist. One primary-key lookup, prepared once.
 */
export function prepareNoteListVersion(db: Db) {
  const statement = db
    .select({ version: noteListVersions.version })
    .from(noteListVersions)
    .where(eq(noteListVersions.clinicId, sql.placeholder('clinicId')))
    .prepare('note_list_version');
  return async (clinicId: string): Promise<number> => (await statement.execute({ clinicId }))[0]?.version ?? 0;
}
