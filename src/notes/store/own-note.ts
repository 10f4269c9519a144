import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../callers.ts';
import { findNote, type NoteRow } from './notes.repo.ts';

/**
 * The Notes tree's one tenancy gate: the note the caller asked for, 404 when there is none, 403 when
 * it is another clinic's. Every read or change of a note by id goes through it.
 */
export function ownNote<T extends { clinicId: string }>(caller: NotesCaller, note: T | undefined): T {
  if (!note) throw new AppError('NOTE_NOT_FOUND', 'Note not found');
  if (note.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This note belongs to another clinic');
  return note;
}

/** The note `id` of the caller's clinic (whole row, transcript included), through `ownNote`. */
export async function noteOfClinic(caller: NotesCaller, id: string, db: Db): Promise<NoteRow> {
  return ownNote(caller, await findNote(id, db));
}
