import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import type { Idempotent } from '../../platform/db/idempotency.ts';
import { AppError } from '../../platform/errors.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import type { NotesCaller } from '../callers.ts';
import { chargeLockedClinicQuota } from '../clinics/quota.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { partsOf } from '../live/parts.repo.ts';
import { clinicShare } from '../processing/clinic-share.ts';
import type { transcribeJob } from '../processing/transcribe.job.ts';
import { audioExpired } from '../recording/audio.service.ts';
import { refuseSigned } from '../store/locked.ts';
import { lockClinicQuota, type NoteRow, requeueFailedNote } from '../store/notes.repo.ts';
import { noteOfClinic } from '../store/own-note.ts';
import { lockNoteRecord } from '../store/record.repo.ts';
import { recordRetry, retriesOf } from './retry.repo.ts';

export interface RetryDeps {
  db: Db;
  /** Where the recording a retry transcribes again must still be. */
  storage: AudioStorage;
  idempotent: Idempotent;
  jobs: JobQueue;
  transcribe: ReturnType<typeof transcribeJob>;
  /** Retries accepted per note (NOTE_MAX_RETRIES); each runs transcription and drafting again. */
  maxRetries: number;
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
 * answer (`idempotent`'s race rule: its update waited for the winner's commit). A retry costs what
 * an upload costs (speech-to-text and drafting again), so it is charged to the clinic's monthly
 * quota and capped per note; a refused retry writes nothing.
 */
export function retryService(deps: RetryDeps) {
  return bindService(deps, { retry: retryNote });
}

/** Retries the failed note `noteId`; `idempotencyKey` (the request's Idempotency-Key) replays an earlier answer. */
async function retryNote(
  deps: RetryDeps,
  caller: NotesCaller,
  { noteId, idempotencyKey }: { noteId: string; idempotencyKey: string | undefined },
): Promise<RetryResult> {
  const found = await noteOfClinic(caller, noteId, deps.db);
  const request = { owner: caller.clinicId, scope: SCOPE, key: idempotencyKey, fingerprint: noteId, reusedFor: 'another note' };
  // A failed note whose recording is gone cannot be transcribed again: refused before anything is
  // written (a replay of an answered key never gets here). 410 AUDIO_EXPIRED when the clinic's audio
  // retention deleted it, 404 AUDIO_NOT_FOUND when storage has lost it. Checked inside the
  // transaction, under the clinic lock: simultaneous retries then queue on that lock as they arrive,
  // and exactly one of them finds the note still failed.
  const recordingStillThere = async (tx: Db) => {
    if (found.transcriptionStatus !== 'failed') return;
    if (found.audioDeletedAt) throw audioExpired(found.audioDeletedAt);
    if (!(await recordingStored(deps, found, tx))) {
      throw new AppError('AUDIO_NOT_FOUND', "This note's recording is no longer in storage: it cannot be transcribed again");
    }
  };
  return deps.idempotent<RetryResult['body']>(request, async (tx) => {
    // The clinic lock first (as an upload takes it), so the cap and quota checks below see every
    // other retry or upload of this clinic that committed before this one.
    const quotaMinutes = await lockClinicQuota(caller.clinicId, tx);
    // A signed note is locked, whatever its state: checked under its row lock (as a signature takes it).
    const record = await lockNoteRecord(noteId, tx);
    if (record) refuseSigned(record);
    await recordingStillThere(tx);
    const note = await requeueFailedNote(noteId, caller.clinicId, tx);
    if (!note) {
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
    await chargeLockedClinicQuota(caller.clinicId, quotaMinutes, found.audioDurationSeconds, tx);
    await recordRetry({ noteId: note.id, clinicId: caller.clinicId, audioDurationSeconds: found.audioDurationSeconds }, tx);
    await deps.jobs.send(deps.transcribe, { noteId: note.id }, { tx, ...clinicShare(caller.clinicId, found.captureState !== null) });
    await recordNoteEvent(tx, note.id, 'retried', caller);
    return { statusCode: 202, body: { status: 'success', data: { id: note.id, transcription_status: 'pending' } } };
  });
}

/**
 * Whether what a retry transcribes is still in storage: an upload's file, or every part of a live
 * note (its transcription reads the parts, joined into one file or not: docs/notes-live.md).
 */
async function recordingStored(deps: RetryDeps, note: Pick<NoteRow, 'id' | 'audioKey' | 'captureState'>, tx: Db): Promise<boolean> {
  if (!note.captureState) return Boolean(note.audioKey) && deps.storage.exists(note.audioKey);
  // In the retry's transaction: the embedded database has one connection.
  const parts = await partsOf(note.id, tx);
  if (parts.length === 0) return false;
  const held = await Promise.all(parts.map((part) => deps.storage.exists(part.storageKey)));
  return held.every(Boolean);
}

export type RetryService = ReturnType<typeof retryService>;
