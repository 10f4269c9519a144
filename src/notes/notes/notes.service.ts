import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { notes } from '../../platform/db/schema/index.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../auth/key-authenticator.ts';
import { type SectionFields, toNoteBody } from './note-view.ts';
import { findNote, type NoteRow, noteColumnsWithoutTranscript } from './notes.repo.ts';

/** The note `id` of the caller's clinic: 404 when missing, 403 when another clinic's. */
export async function noteOfClinic(db: Db, caller: NotesCaller, id: string): Promise<NoteRow> {
  const note = await findNote(id, db);
  if (!note) throw new AppError('NOTE_NOT_FOUND', 'Note not found');
  if (note.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This note belongs to another clinic');
  return note;
}

/**
 * The single-note read, a hot path: one prepared statement brings the note (without its transcript)
 * and its sections, ordered, as a JSON array; sections of a note the caller may not see are simply
 * discarded.
 */
export function prepareNoteReader(db: Db, publicBaseUrl: string) {
  // Plain SQL names: in a one-table select drizzle leaves columns unqualified, and the correlated
  // subquery must say which table's id it means.
  const statement = db
    .select({
      ...noteColumnsWithoutTranscript,
      sections: sql<SectionFields[]>`coalesce((
        select json_agg(json_build_object(
          'id', s.id, 'noteId', s.note_id, 'label', s.label, 'title', s.title, 'content', s.content,
          'evidence', s.evidence, 'order', s."order", 'createdAt', s.created_at, 'updatedAt', s.updated_at) order by s.position)
        from note_sections s where s.note_id = notes.id), '[]'::json)`.as('sections'),
    })
    .from(notes)
    .where(eq(notes.id, sql.placeholder('id')))
    .prepare('note_with_sections');
  return async (caller: NotesCaller, id: string) => {
    const [row] = await statement.execute({ id });
    if (!row) throw new AppError('NOTE_NOT_FOUND', 'Note not found');
    if (row.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This note belongs to another clinic');
    const { sections, ...note } = row;
    return toNoteBody(note, publicBaseUrl, sections);
  };
}

/**
 * The polling path: one primary-key lookup, prepared once. While a long note is processed in
 * chunks, the share of chunks already transcribed comes along (a count over the note's few rows).
 */
export function prepareStatusLookup(db: Db) {
  const statement = db
    .select({
      clinicId: notes.clinicId,
      status: notes.transcriptionStatus,
      progress: sql<number | null>`case when notes.transcription_status = 'processing' then (
        select (count(*) filter (where c.transcript is not null))::float8 / nullif(count(*), 0)
        from note_transcript_chunks c where c.note_id = notes.id) end`.as('progress'),
    })
    .from(notes)
    .where(eq(notes.id, sql.placeholder('id')))
    .prepare('note_status');
  return async (caller: NotesCaller, id: string) => {
    const [row] = await statement.execute({ id });
    if (!row) throw new AppError('NOTE_NOT_FOUND', 'Note not found');
    if (row.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This note belongs to another clinic');
    const progress = row.progress === null ? undefined : Math.round(Number(row.progress) * 1000) / 1000;
    return { status: row.status, valid: row.status !== 'failed', ...(progress === undefined ? {} : { progress }) };
  };
}
