import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import type { Idempotent } from '../../platform/db/idempotency.ts';
import { AppError } from '../../platform/errors.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { NotesCaller } from '../callers.ts';
import type { transcribeJob } from '../processing/transcribe.job.ts';
import { requeueFailedNote } from '../store/notes.repo.ts';
import { noteOfClinic } from '../store/own-note.ts';

export interface RetryDeps {
  db: Db;
  idempotent: Idempotent;
  jobs: JobQueue;
  transcribe: ReturnType<typeof transcribeJob>;
}

export interface RetryResult {
  statusCode: number;
  body: { status: 'success'; data: { id: string; transcription_status: 'pending' } };
  replayed: boolean;
}

const SCOPE = 'POST /notes/retry';

/**
 * failed → pending, failure cleared, one new job. The state change is a conditional update, so of
 * two simultaneous retries exactly one wins (and sends the job); the other sees a note that is no
 * longer failed — and, when both carried the same Idempotency-Key, answers with the winner's
 * answer (`idempotent`'s race rule: its update waited for the winner's commit).
 */
export function retryService(deps: RetryDeps) {
  return bindService(deps, { retry: retryNote });
}

async function retryNote(deps: RetryDeps, caller: NotesCaller, noteId: string, idempotencyKey?: string): Promise<RetryResult> {
  await noteOfClinic(caller, noteId, deps.db);
  const request = { owner: caller.clinicId, scope: SCOPE, key: idempotencyKey, fingerprint: noteId, reusedFor: 'another note' };
  return deps.idempotent<RetryResult['body']>(request, async (tx) => {
    const note = await requeueFailedNote(noteId, caller.clinicId, tx);
    if (!note) {
      const current = await noteOfClinic(caller, noteId, tx);
      throw new AppError('NOTE_NOT_FAILED', `Only a failed note can be retried; this one is ${current.transcriptionStatus}`, {
        transcription_status: current.transcriptionStatus,
      });
    }
    await deps.jobs.send(deps.transcribe, { noteId: note.id }, { tx });
    return { statusCode: 202, body: { status: 'success', data: { id: note.id, transcription_status: 'pending' } } };
  });
}
