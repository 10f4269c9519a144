import { createHash, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { joinedSeconds } from '../../audio/join.ts';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { JobDefinition } from '../../platform/jobs.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import type { NotesCaller } from '../callers.ts';
import { chargeClinicQuota } from '../clinics/quota.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { clinicShare } from '../processing/clinic-share.ts';
import { captureOf } from '../store/note-view.ts';
import { findNote, type NoteRow } from '../store/notes.repo.ts';
import { noteOfClinic, ownNote } from '../store/own-note.ts';
import { createNewNote, type NewNoteDeps, probeReceivedAudio } from '../upload/new-note.ts';
import { metadataFromObject } from '../upload/upload-metadata.ts';
import { PART_MAX_SECONDS, PART_MIN_SECONDS } from './live.schemas.ts';
import { closeCapture, findPart, insertPart, lockNote, type PartRow, partNumbersOf, partsOf } from './parts.repo.ts';
import type { ReceivedPart } from './receive-part.ts';

export interface LiveServiceDeps extends NewNoteDeps {
  db: Db;
  storage: AudioStorage;
  /** The note's transcription (processing/transcribe.job.ts), sent when the capture closes. */
  transcribe: JobDefinition<{ noteId: string }>;
  /** Transcribes a part as it arrives (live-part.job.ts). */
  partJob: JobDefinition<{ noteId: string; part: number }>;
  /** Closes a capture left idle (capture-idle.job.ts). */
  idleJob: JobDefinition<{ noteId: string }>;
  /** Joins a closed capture's parts into one recording (join-recording.job.ts). */
  joinJob: JobDefinition<{ noteId: string }>;
  idleSeconds: number;
  /** The whole recording's limits (AUDIO_MAX_SECONDS, AUDIO_MAX_BYTES), as for an upload. */
  maxSeconds: number;
  maxBytes: number;
}

interface Answer<B> {
  statusCode: number;
  body: { status: 'success'; data: B };
  replayed?: boolean;
}

/** Creates a live note, open for parts; its idle close is scheduled with it (upload/new-note.ts). */
async function create(deps: LiveServiceDeps, caller: NotesCaller, input: { body: unknown; idempotencyKey: string | undefined }) {
  return createNewNote(deps, caller, {
    metadata: metadataFromObject(input.body, null),
    fieldPrefix: '',
    idempotency: {
      scope: 'POST /notes/live',
      reusedFor: 'a different live note',
      key: input.idempotencyKey,
      fingerprint: createHash('sha256').update(JSON.stringify(input.body)).digest('hex'),
    },
    // No single file yet: the parts are the audio (join-recording.job.ts fills these in).
    audio: () => ({
      audioKey: '',
      audioFormat: 'wav',
      audioBytes: 0,
      audioSha256: '',
      audioDurationSeconds: 0,
      captureState: 'open',
      captureTouchedAt: new Date(),
    }),
    job: { definition: deps.idleJob, startAfter: deps.idleSeconds },
    eventDetails: { live: true },
    answerData: (note) => ({ capture: captureOf(note) }),
  });
}

const partBody = (part: PartRow) => ({
  note_id: part.noteId,
  part: part.part,
  seconds: Math.round(part.seconds * 1000) / 1000,
  bytes: part.bytes,
  sha256: part.sha256,
});

/** The answer to a part already held: the same bytes are a replay (200), other bytes a conflict. */
function heldPart(held: PartRow, sha256: string): Answer<ReturnType<typeof partBody>> {
  if (held.sha256 !== sha256) {
    throw new AppError('PART_CONFLICT', `Part ${held.part} is already held with other bytes`, { part: held.part, sha256: held.sha256 });
  }
  return { statusCode: 200, body: { status: 'success', data: partBody(held) }, replayed: true };
}

function captureClosed(note: NoteRow): AppError {
  return note.captureState
    ? new AppError('CAPTURE_CLOSED', 'The capture of this note is closed: it takes no new part', { parts: note.captureParts })
    : new AppError('CAPTURE_CLOSED', 'This note was uploaded in one piece: it takes no parts', { live: false });
}

/**
 * Stores part `n` and records it, with its transcription job, before answering 201. The bytes are
 * checked first (format from the bytes, 1-600 s), then stored outside any transaction; the
 * transaction takes the note's row lock, so parts of one note are added one at a time against the
 * whole recording's limits and the clinic's quota. Whatever is refused leaves nothing behind.
 */
async function putPart(deps: LiveServiceDeps, caller: NotesCaller, input: { noteId: string; part: number; audio: ReceivedPart }) {
  const { audio, part } = input;
  try {
    const note = await noteOfClinic(caller, input.noteId, deps.db);
    const held = await findPart(note.id, part, deps.db);
    if (held) return heldPart(held, audio.sha256);
    if (note.captureState !== 'open') throw captureClosed(note);

    const { format, seconds: probed } = await probeReceivedAudio(audio);
    // As the part plays when joined to its neighbours (every packet): where the next part starts.
    const seconds = (await joinedSeconds(format, audio.path).catch(() => null)) ?? probed;
    if (seconds < PART_MIN_SECONDS || seconds > PART_MAX_SECONDS) {
      throw new AppError('AUDIO_DURATION_INVALID', `A part must last between ${PART_MIN_SECONDS} and ${PART_MAX_SECONDS} seconds`, {
        duration: Math.round(seconds * 100) / 100,
        min_duration: PART_MIN_SECONDS,
        max_duration: PART_MAX_SECONDS,
      });
    }

    // A key of its own per attempt: a simultaneous resend of the same part never deletes the winner's file.
    const key = `${caller.clinicId}/${note.id}/part-${part}-${randomUUID()}.${format}`;
    await deps.storage.putFile(key, audio.path);
    try {
      const answer = await deps.db.transaction(async (tx): Promise<Answer<ReturnType<typeof partBody>>> => {
        // Deleted meanwhile (DELETE /notes/{id}, an erasure): 404, and the stored file goes below.
        const locked = ownNote(caller, await lockNote(note.id, tx));
        const raced = await findPart(note.id, part, tx);
        if (raced) return heldPart(raced, audio.sha256);
        if (locked.captureState !== 'open') throw captureClosed(locked);
        checkRecordingLimits(deps, locked, seconds, audio.bytes);
        await chargeClinicQuota(caller.clinicId, seconds, tx);
        const row = await insertPart(
          { noteId: note.id, part, storageKey: key, format, bytes: audio.bytes, seconds, sha256: audio.sha256 },
          tx,
        );
        await deps.jobs.send(deps.partJob, { noteId: note.id, part }, { tx, ...clinicShare(caller.clinicId, true) });
        await recordNoteEvent(tx, note.id, 'part_received', caller, {
          part,
          bytes: audio.bytes,
          seconds: row.seconds,
          sha256: audio.sha256,
        });
        // The next part, come first, waited for this one (its request starts with this part's end).
        if (await findPart(note.id, part + 1, tx))
          await deps.jobs.send(deps.partJob, { noteId: note.id, part: part + 1 }, { tx, ...clinicShare(caller.clinicId, true) });
        return { statusCode: 201, body: { status: 'success', data: partBody(row) } };
      });
      if (answer.replayed) await deps.storage.delete(key).catch(() => {});
      return answer;
    } catch (error) {
      await deps.storage.delete(key).catch(() => {});
      throw error;
    }
  } catch (error) {
    // The note deleted while the part was on its way (its temporary file removed with it, say):
    // what failed was a part of a note that no longer exists.
    if (!(error instanceof AppError) && !(await findNote(input.noteId, deps.db).catch(() => undefined))) {
      throw new AppError('NOTE_NOT_FOUND', 'Note not found');
    }
    throw error;
  } finally {
    await rm(audio.path, { force: true });
  }
}

/** The whole recording (the parts joined) within the upload limits: the part that would pass them is refused. */
function checkRecordingLimits(deps: LiveServiceDeps, note: NoteRow, seconds: number, bytes: number): void {
  const totalSeconds = note.audioDurationSeconds + seconds;
  if (totalSeconds > deps.maxSeconds) {
    throw new AppError('AUDIO_DURATION_INVALID', `The whole recording may last at most ${deps.maxSeconds} seconds`, {
      duration: Math.round(totalSeconds * 100) / 100,
      min_duration: PART_MIN_SECONDS,
      max_duration: deps.maxSeconds,
    });
  }
  const totalBytes = note.audioBytes + bytes;
  if (totalBytes > deps.maxBytes) {
    throw new AppError('AUDIO_TOO_LARGE', `The whole recording may hold at most ${Math.round(deps.maxBytes / 1_048_576)} MB`, {
      file_size: totalBytes,
      max_size: deps.maxBytes,
      max_size_mb: Math.round(deps.maxBytes / 1_048_576),
    });
  }
}

/** The parts held, in order, and the capture's state: what a client resumes from. */
async function listParts(deps: LiveServiceDeps, caller: NotesCaller, noteId: string) {
  const note = await noteOfClinic(caller, noteId, deps.db);
  if (!note.captureState) throw captureClosed(note);
  const parts = await partsOf(note.id, deps.db);
  return {
    data: parts.map((part) => {
      const { note_id: _noteId, ...body } = partBody(part);
      return { ...body, received_at: toTimestamp(part.receivedAt) };
    }),
    meta: captureOf(note),
  };
}

/**
 * Closes the capture at `parts` and queues the note's transcription (and the joining of its
 * recording). Parts 1..N must all be held (PARTS_MISSING, checked first) and none above N
 * (PARTS_UNEXPECTED); once closed, the same N answers 202 again and another N is refused.
 */
async function complete(deps: LiveServiceDeps, caller: NotesCaller, input: { noteId: string; parts: number }) {
  const note = await noteOfClinic(caller, input.noteId, deps.db);
  if (!note.captureState) throw captureClosed(note);
  return deps.db.transaction(async (tx) => {
    // Deleted meanwhile (DELETE /notes/{id}, an erasure): 404 as for any missing note.
    const locked = ownNote(caller, await lockNote(note.id, tx));
    if (locked.captureState !== 'open') {
      if (locked.captureParts !== input.parts) {
        throw new AppError('CAPTURE_CLOSED', `The capture was closed with ${locked.captureParts} parts`, { parts: locked.captureParts });
      }
      return { id: locked.id, transcription_status: locked.transcriptionStatus };
    }
    const held = await partNumbersOf(note.id, tx);
    const have = new Set(held);
    const missing = Array.from({ length: input.parts }, (_, i) => i + 1).filter((n) => !have.has(n));
    if (missing.length > 0) {
      throw new AppError('PARTS_MISSING', `${missing.length} of parts 1-${input.parts} are missing: send them first`, { missing });
    }
    const unexpected = held.filter((n) => n > input.parts);
    if (unexpected.length > 0) {
      throw new AppError('PARTS_UNEXPECTED', `Parts above ${input.parts} are held`, { unexpected });
    }
    await closeCapture(note.id, 'closed', tx);
    await recordNoteEvent(tx, note.id, 'capture_completed', caller, { parts: input.parts });
    await deps.jobs.send(deps.transcribe, { noteId: note.id }, { tx, ...clinicShare(locked.clinicId, true) });
    await deps.jobs.send(deps.joinJob, { noteId: note.id }, { tx });
    return { id: locked.id, transcription_status: locked.transcriptionStatus };
  });
}

/** Live capture, bound once to its dependencies. */
export function liveService(deps: LiveServiceDeps) {
  return bindService(deps, { create, putPart, listParts, complete });
}

export type LiveService = ReturnType<typeof liveService>;
