import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { findIdempotentResponse, recordIdempotentResponse } from '../../platform/db/idempotency.ts';
import { AppError } from '../../platform/errors.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { NotesCaller } from '../callers.ts';
import { chargeClinicQuota } from '../clinics/quota.ts';
import { lockClinicQuota, requeueFailedNote } from '../notes/notes.repo.ts';
import { noteOfClinic } from '../notes/notes.service.ts';
import type { transcribeJob } from '../pipeline/transcribe.job.ts';
import { recordRetry, retriesOf } from './retry.repo.ts';

export interface RetryDeps {
  db: Db;
  jobs: JobQueue;
  transcribe: ReturnType<typeof transcribeJob>;
  /** Retries accepted per note (NOTE_MAX_RETRIES); each runs transcription and drafting again. */
  maxRetries: number;
}

export interface RetryResult {
  statusCode: 202;
  body: { status: 'success'; data: { id: string; transcription_status: 'pending' } };
  replayed: boolean;
}

const SCOPE = 'POST /notes/retry';

/**
 * failed → pending, failure cleared, one new job. The state change is a conditional update, so of
 * two simultaneous retries exactly one wins (and sends the job); the other sees a note that is no
 * longer failed. A retry costs what an upload costs (speech-to-text and drafting again), so it is
 * charged to the clinic's monthly quota and capped per note; a refused retry writes nothing.
 */
export function retryService(deps: RetryDeps) {
  return bindService(deps, { retry: retryNote });
}

async function retryNote(deps: RetryDeps, caller: NotesCaller, noteId: string, idempotencyKey?: string): Promise<RetryResult> {
  const found = await noteOfClinic(caller, noteId, deps.db);
  const replayed = idempotencyKey ? await replayOf(caller, idempotencyKey, noteId, deps.db) : undefined;
  if (replayed) return replayed;
  return deps.db.transaction(async (tx) => {
    // The clinic lock first (as an upload takes it), so the cap and quota checks below see every
    // other retry or upload of this clinic that committed before this one.
    await lockClinicQuota(caller.clinicId, tx);
    const note = await requeueFailedNote(noteId, caller.clinicId, tx);
    if (!note) {
      // A concurrent retry with the same key got here first: this UPDATE waited for its commit
      // (the row lock), so its recorded answer is visible now and is the answer to this call too.
      const replayed = idempotencyKey ? await replayOf(caller, idempotencyKey, noteId, tx) : undefined;
      if (replayed) return replayed;
      const current = await noteOfClinic(caller, noteId, tx);
      throw new AppError('NOTE_NOT_FAILED', `Only a failed note can be retried; this one is ${current.transcriptionStatus}`, {
        transcription_status: current.transcriptionStatus,
      });
    }
    const retries = await retriesOf(note.id, tx);
    if (retries >= deps.maxRetries) {
      throw new AppError('NOTE_RETRY_LIMIT', `This note was already retried ${retries} times, the most this server allows`, {
        retries,
        max_retries: deps.maxRetries,
      });
    }
    await chargeClinicQuota(caller.clinicId, found.audioDurationSeconds, tx);
    await recordRetry({ noteId: note.id, clinicId: caller.clinicId, audioDurationSeconds: found.audioDurationSeconds }, tx);
    const body = { status: 'success' as const, data: { id: note.id, transcription_status: 'pending' as const } };
    if (idempotencyKey) {
      await recordIdempotentResponse(
        {
          clinicId: caller.clinicId,
          scope: SCOPE,
          key: idempotencyKey,
          fingerprint: noteId,
          statusCode: 202,
          response: body,
        },
        tx,
      );
    }
    await deps.jobs.send(deps.transcribe, { noteId: note.id }, { tx });
    return { statusCode: 202 as const, body, replayed: false };
  });
}

/** The answer already given to this Idempotency-Key, or undefined; the key used for another note → 422. */
async function replayOf(caller: NotesCaller, key: string, noteId: string, db: Db): Promise<RetryResult | undefined> {
  const previous = await findIdempotentResponse(caller.clinicId, SCOPE, key, db);
  if (!previous) return undefined;
  if (previous.fingerprint !== noteId) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for another note', { field: 'Idempotency-Key' });
  }
  return { statusCode: 202, body: previous.response as RetryResult['body'], replayed: true };
}
