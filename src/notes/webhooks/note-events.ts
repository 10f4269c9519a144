import type { Db } from '../../platform/db/client.ts';
import { toNoteBody, withBaseUrl } from '../store/note-view.ts';
import { findNote, renderedNote, sectionsOf } from '../store/notes.repo.ts';
import type { AmendmentRow } from '../store/record.repo.ts';
import { findSignature } from '../store/record.repo.ts';
import { toAmendmentBody } from '../store/record.view.ts';
import type { Outbox } from './outbox.ts';

/** What processing (and the record) call inside the transaction that changes a note. */
export interface NoteEvents {
  completed(tx: Db, noteId: string): Promise<void>;
  failed(tx: Db, noteId: string): Promise<void>;
  /** `note.signed`: the note as signed, its signature included. */
  signed(tx: Db, noteId: string): Promise<void>;
  /** `note.amended`: the note as it stands after the amendment, and the amendment. */
  amended(tx: Db, noteId: string, amendment: AmendmentRow): Promise<void>;
}

type NoteEventType = 'note.completed' | 'note.failed' | 'note.signed' | 'note.amended';

/**
 * `note.completed` / `note.failed` / `note.signed` / `note.amended` with the note as the API shows
 * it (sections, signature and transcript URL when completed, failure when failed) so a receiver can
 * act without calling back. Never the audio.
 */
export function noteEvents(outbox: Outbox, publicBaseUrl: string): NoteEvents {
  const record = async (tx: Db, noteId: string, type: NoteEventType, extra: Record<string, unknown> = {}) => {
    // The note as GET /notes/{id} shows it: rendered by the change this transaction just made.
    const rendered = await renderedNote(noteId, tx);
    if (rendered) {
      const { id, ...body } = JSON.parse(withBaseUrl(rendered.body, publicBaseUrl));
      await outbox.record(tx, { clinicId: rendered.clinicId, type, data: { note_id: id, ...body, ...extra } });
      return;
    }
    // No render (a note written while triggers were off): assembled, as GET does for such a note.
    const note = await findNote(noteId, tx);
    if (!note) return;
    const sections = type === 'note.failed' ? [] : await sectionsOf(noteId, tx);
    const signature = type === 'note.signed' || type === 'note.amended' ? await findSignature(noteId, tx) : null;
    const { id, ...body } = toNoteBody(note, publicBaseUrl, sections, signature);
    await outbox.record(tx, { clinicId: note.clinicId, type, data: { note_id: id, ...body, ...extra } });
  };
  return {
    completed: (tx, noteId) => record(tx, noteId, 'note.completed'),
    failed: (tx, noteId) => record(tx, noteId, 'note.failed'),
    signed: (tx, noteId) => record(tx, noteId, 'note.signed'),
    amended: (tx, noteId, amendment) => record(tx, noteId, 'note.amended', { amendment: toAmendmentBody(amendment) }),
  };
}

/** For code paths and tests that change notes without webhooks. */
export const NO_NOTE_EVENTS: NoteEvents = {
  completed: async () => {},
  failed: async () => {},
  signed: async () => {},
  amended: async () => {},
};
