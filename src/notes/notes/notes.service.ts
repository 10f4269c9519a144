import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { noteSections, notes } from '../../platform/db/schema/index.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../auth/key-authenticator.ts';
import { toNoteBody } from './note-view.ts';
import { findNote, type NoteRow } from './notes.repo.ts';

/** The note `id` of the caller's clinic: 404 when missing, 403 when another clinic's. */
export async function noteOfClinic(db: Db, caller: NotesCaller, id: string): Promise<NoteRow> {
  const note = await findNote(db, id);
  if (!note) throw new AppError('NOTE_NOT_FOUND', 'Note not found');
  if (note.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This note belongs to another clinic');
  return note;
}

/**
 * The single-note read, a hot path: the note and its sections are fetched side by side through
 * prepared statements, and sections of a note the caller may not see are simply discarded.
 */
export function prepareNoteReader(db: Db, publicBaseUrl: string) {
  const noteById = db
    .select()
    .from(notes)
    .where(eq(notes.id, sql.placeholder('id')))
    .prepare('note_by_id');
  const sectionsByNote = db
    .select()
    .from(noteSections)
    .where(eq(noteSections.noteId, sql.placeholder('id')))
    .orderBy(asc(noteSections.position))
    .prepare('sections_by_note');
  return async (caller: NotesCaller, id: string) => {
    const [[note], sections] = await Promise.all([noteById.execute({ id }), sectionsByNote.execute({ id })]);
    if (!note) throw new AppError('NOTE_NOT_FOUND', 'Note not found');
    if (note.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This note belongs to another clinic');
    return toNoteBody(note, publicBaseUrl, sections);
  };
}

/** The polling path: one primary-key lookup of two columns, prepared once. */
export function prepareStatusLookup(db: Db) {
  const statement = db
    .select({ clinicId: notes.clinicId, status: notes.transcriptionStatus })
    .from(notes)
    .where(eq(notes.id, sql.placeholder('id')))
    .prepare('note_status');
  return async (caller: NotesCaller, id: string) => {
    const [row] = await statement.execute({ id });
    if (!row) throw new AppError('NOTE_NOT_FOUND', 'Note not found');
    if (row.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This note belongs to another clinic');
    return { status: row.status, valid: row.status !== 'failed' };
  };
}
