import type { Db } from '../../platform/db/client.ts';
import { toNoteBody } from '../store/note-view.ts';
import { findNote, sectionsOf } from '../store/notes.repo.ts';
import type { Outbox } from './outbox.ts';

/** What processing calls inside the transaction that completes or fails a note. */
export interface NoteEvents {
  completed(tx: Db, noteId: string): Promise<void>;
  failed(tx: Db, noteId: string): Promise<void>;
}

/**
 * `note.completed` / `note.failed` with the note as the API shows it (sections and transcript URL
 * when completed, failure when failed) so a receiver can act without calling back. Never the audio.
 */
export function noteEvents(outbox: Outbox, publicBaseUrl: string): NoteEvents {
  const record = async (tx: Db, noteId: string, type: 'note.completed' | 'note.failed') => {
    const note = await findNote(noteId, tx);
    if (!note) return;
    const sections = type === 'note.completed' ? await sectionsOf(noteId, tx) : [];
    const { id, ...body } = toNoteBody(note, publicBaseUrl, sections);
    await outbox.record(tx, { clinicId: note.clinicId, type, data: { note_id: id, ...body } });
  };
  return {
    completed: (tx, noteId) => record(tx, noteId, 'note.completed'),
    failed: (tx, noteId) => record(tx, noteId, 'note.failed'),
  };
}

/** For code paths and tests that change notes without webhooks. */
export const NO_NOTE_EVENTS: NoteEvents = { completed: async () => {}, failed: async () => {} };
