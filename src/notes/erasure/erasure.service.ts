import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { deleteAnswersMentioning, deleteJobsCarrying } from '../../platform/db/platform-erasure.repo.ts';
import { AppError } from '../../platform/errors.ts';
import { metaOf, pageOf } from '../../platform/http/pagination.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { Logger } from '../../platform/logger.ts';
import type { NotesCaller } from '../callers.ts';
import { partKeysWithNotes } from '../live/parts.repo.ts';
import { ownNote } from '../store/own-note.ts';
import { lockPatientForErasure } from '../store/patient-lock.repo.ts';
import {
  deleteNotes,
  type ErasureRow,
  emptyWebhookEvents,
  erasuresOf,
  insertErasure,
  lockNote,
  lockNotesOfPatient,
  type NoteToErase,
  quotaSecondsSince,
} from './erasure.repo.ts';
import type { ErasureLogKeys } from './erasure-log-key.ts';
import { type Purge, type PurgeDeps, type PurgeFilesJob, purgeFiles } from './purge-files.ts';

export interface ErasureDeps extends PurgeDeps {
  db: Db;
  /** The keys of the log's external id digests. */
  erasureLog: ErasureLogKeys;
  jobs: JobQueue;
  purge: PurgeFilesJob;
  logger: Logger;
}

/**
 * Everything of `notes` (all of the caller's clinic) in the database, in the caller's transaction:
 * webhook events emptied to their shell and their unsent deliveries failed, the queue's jobs for
 * them (transcription, webhook deliveries), the stored idempotent answers that name them, then the
 * notes with everything that hangs on them (sections, versions, signature, amendments, history,
 * retries, chunks). Their files are left to `purgeFiles`, after the commit, with a job sent here as
 * the guarantee. Returns that purge and the quota seconds they charged this month.
 */
async function eraseNotes(deps: ErasureDeps, clinicId: string, notes: readonly NoteToErase[], tx: Db) {
  const ids = notes.map((note) => note.id);
  if (ids.length === 0) return { purge: { keys: [], note_ids: ids } satisfies Purge, quotaSeconds: 0 };
  // A live note's parts are files of its recording too (its joined file is its audioKey).
  const keys = [
    ...notes.map((note) => note.audioKey).filter(Boolean),
    ...(await partKeysWithNotes(ids, tx)).map((part) => part.storageKey),
  ];
  const purge: Purge = { keys, note_ids: ids };
  const now = new Date();
  const quotaSeconds = await quotaSecondsSince(ids, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), tx);
  const deliveryIds = await emptyWebhookEvents(clinicId, ids, tx);
  await deleteJobsCarrying('noteId', ids, tx);
  await deleteJobsCarrying('deliveryId', deliveryIds, tx);
  await deleteAnswersMentioning(clinicId, ids, tx);
  await deleteNotes(ids, tx);
  await deps.jobs.send(deps.purge, purge, { tx });
  return { purge, quotaSeconds };
}

/** Deletes the files now; when storage refuses, the job sent with the erasure retries. */
async function purgeNow(deps: ErasureDeps, purge: Purge): Promise<void> {
  if (purge.note_ids.length === 0) return;
  try {
    await purgeFiles(deps, purge);
  } catch (error) {
    deps.logger.warn({ err: error, notes: purge.note_ids.length }, 'files of deleted notes left to the purge job');
  }
}

/**
 * DELETE /notes/{id}: the note and everything it touched, for good. A signed (or amended) note is
 * part of the clinical record: deleting it needs a reason (422 REASON_REQUIRED). One `note` entry
 * in the erasure log. Another clinic's note → 403, none → 404 (also the second time).
 */
async function deleteNote(deps: ErasureDeps, caller: NotesCaller, input: { noteId: string; reason?: string | undefined }): Promise<void> {
  // The key is loaded (at most once per process) before the transaction, which holds the note's lock.
  await deps.erasureLog.keys();
  const purge = await deps.db.transaction(async (tx) => {
    const note = ownNote(caller, await lockNote(input.noteId, tx));
    if (note.recordStatus !== 'draft' && !input.reason) {
      throw new AppError('REASON_REQUIRED', 'This note is signed: deleting it needs a reason (JSON body {"reason": "…"})', {
        field: 'reason',
        record_status: note.recordStatus,
      });
    }
    const erased = await eraseNotes(deps, caller.clinicId, [note], tx);
    await insertErasure(
      {
        clinicId: caller.clinicId,
        kind: 'note',
        noteId: note.id,
        externalIdHmac: note.externalId === null ? null : await deps.erasureLog.digest(note.externalId),
        notesDeleted: 1,
        keyId: caller.keyId,
        reason: input.reason ?? null,
        quotaSeconds: erased.quotaSeconds,
      },
      tx,
    );
    return erased.purge;
  });
  await purgeNow(deps, purge);
}

/**
 * POST /erasures: a tutor's right to erasure in one call — every note of the external id in the
 * caller's clinic, as `deleteNote` deletes one, signed ones included (the reason is required), in
 * one transaction, with one `patient` entry in the log. A second call finds nothing more to delete
 * and logs the request again with `notes_deleted: 0`.
 */
async function erasePatient(deps: ErasureDeps, caller: NotesCaller, input: { externalId: string; reason: string }) {
  const digest = await deps.erasureLog.digest(input.externalId);
  const { entry, purge } = await deps.db.transaction(async (tx) => {
    // Before reading the notes: the notes being created for the patient commit first (and are read
    // here), and a new one is refused until this commits.
    await lockPatientForErasure(caller.clinicId, input.externalId, tx);
    const notes = await lockNotesOfPatient(caller.clinicId, input.externalId, tx);
    const erased = await eraseNotes(deps, caller.clinicId, notes, tx);
    const entry = await insertErasure(
      {
        clinicId: caller.clinicId,
        kind: 'patient',
        noteId: null,
        externalIdHmac: digest,
        notesDeleted: notes.length,
        keyId: caller.keyId,
        reason: input.reason,
        quotaSeconds: erased.quotaSeconds,
      },
      tx,
    );
    return { entry, purge: erased.purge };
  });
  await purgeNow(deps, purge);
  return { id: entry.id, external_id: input.externalId, notes_deleted: entry.notesDeleted, created_at: toTimestamp(entry.createdAt) };
}

function toErasureBody(row: ErasureRow) {
  return {
    id: row.id,
    kind: row.kind,
    note_id: row.noteId,
    external_id_hmac: row.externalIdHmac,
    notes_deleted: row.notesDeleted,
    key_id: row.keyId,
    reason: row.reason,
    created_at: toTimestamp(row.createdAt),
  };
}

/**
 * GET /erasures: the clinic's erasure log, newest first, a page at a time; with `external_id`, only
 * its entries (found by its digest under the current and the previous keys).
 */
async function listErasures(
  deps: ErasureDeps,
  caller: NotesCaller,
  query: { page?: number; limit?: number; external_id?: string | undefined },
) {
  const page = pageOf(query);
  const digests = query.external_id === undefined ? undefined : await deps.erasureLog.digests(query.external_id);
  const { rows, total } = await erasuresOf(caller.clinicId, page, deps.db, digests);
  return { data: rows.map(toErasureBody), meta: metaOf(page, total) };
}

export function erasureService(deps: ErasureDeps) {
  return bindService(deps, { deleteNote, erasePatient, list: listErasures });
}

export type ErasureService = ReturnType<typeof erasureService>;
