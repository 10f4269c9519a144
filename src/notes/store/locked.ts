import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { tryLockPatientForNewNote } from './patient-lock.repo.ts';

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

/**
 * The first thing a write that creates a note does in its transaction, when the note names a
 * patient (`external_id`): 409 PATIENT_ERASURE_IN_PROGRESS at once while that patient's erasure
 * runs; otherwise the patient's lock is held (shared) until the write commits, so an erasure
 * starting meanwhile waits for the note and erases it too (patient-lock.repo.ts).
 */
export async function refuseDuringErasure(clinicId: string, externalId: string | null, tx: Db): Promise<void> {
  if (externalId === null || (await tryLockPatientForNewNote(clinicId, externalId, tx))) return;
  throw new AppError(
    'PATIENT_ERASURE_IN_PROGRESS',
    'The notes of this patient are being erased: send the note again once the erasure is over',
    {
      field: 'external_id',
    },
  );
}
