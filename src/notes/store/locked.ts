import { AppError } from '../../platform/errors.ts';

/**
 * The check every write a signature forbids (section edit, both retries, a second signature) makes
 * under the note's row lock (lockNoteRecord in record.repo.ts), before any other state check:
 * 409 NOTE_SIGNED on a signed or amended note.
 */
export function refuseSigned(note: { recordStatus: string }): void {
  if (note.recordStatus !== 'draft') {
    throw new AppError('NOTE_SIGNED', 'This note is signed and locked; correct it with an amendment (POST /notes/{id}/amendments)');
  }
}
