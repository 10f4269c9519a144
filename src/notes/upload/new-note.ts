// How a note comes into being, whether its audio arrives in one upload (create-note.service.ts) or
// in parts while the consultation runs (live/live.service.ts): one path for both, so that the
// template, the quota, the row, its first job, its history event, the Idempotency-Key and the
// answer are the same rules for each. What differs (where the audio is, which job follows) is said
// by the caller in `NewNoteRequest`.

import { randomUUID } from 'node:crypto';
import { probeDurationSeconds } from '../../audio/duration.ts';
import { ACCEPTED_FORMATS, mostSecondsIn, sniffAudioFormat } from '../../audio/format.ts';
import type { Db } from '../../platform/db/client.ts';
import type { Idempotent } from '../../platform/db/idempotency.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { JobDefinition, JobQueue } from '../../platform/jobs.ts';
import { notesCreated } from '../../platform/metrics/notes.ts';
import type { NoteStyle } from '../../providers/drafting/port.ts';
import type { AudioFormat } from '../../providers/transcription/port.ts';
import type { NotesCaller } from '../callers.ts';
import { chargeClinicQuota } from '../clinics/quota.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { dayIn } from '../plan/plan-context.ts';
import { refuseDuringErasure } from '../store/locked.ts';
import { insertNote, type NewNote, type NoteRow } from '../store/notes.repo.ts';
import { clinicTimezone } from '../store/settings.repo.ts';
import { resolveNoteTemplate } from '../templates/resolve-template.ts';
import type { UploadMetadata } from './upload-metadata.ts';

export interface NewNoteDeps {
  idempotent: Idempotent;
  jobs: JobQueue;
  /** The style of a note whose metadata does not choose one (NOTE_STYLE). */
  defaultNoteStyle: NoteStyle;
  /** Whether a drafter is configured: without one, `clinical` is refused. */
  clinicalAvailable: boolean;
}

/** The note row's columns that say where its audio is (a stored file, or parts still to come). */
export type NoteAudioColumns = Pick<
  NewNote,
  'audioName' | 'audioKey' | 'audioFormat' | 'audioBytes' | 'audioSha256' | 'audioDurationSeconds' | 'captureState' | 'captureTouchedAt'
>;

export interface NewNoteRequest<Extra extends object> {
  metadata: UploadMetadata;
  /** Where the request's fields are named in errors: `metadata.` in an upload, nothing in a JSON body. */
  fieldPrefix: '' | 'metadata.';
  /** The Idempotency-Key's scope, what a reused key is said to be reused for, and the request's fingerprint. */
  idempotency: { scope: string; reusedFor: string; key: string | undefined; fingerprint: string };
  /** The note's audio columns, read once `before` has run (stored the file). */
  audio: () => NoteAudioColumns;
  /** Seconds charged to the clinic's monthly quota with the note; absent = none now (a live note charges its parts). */
  chargedSeconds?: () => number;
  /** The job that follows the note's creation, sent in its transaction. */
  job: { definition: JobDefinition<{ noteId: string }>; startAfter?: number };
  /** Details of the note's `created` history event. */
  eventDetails?: Record<string, unknown>;
  /** Fields of the answer's data beyond the common ones (placed before `created_at`). */
  answerData?: (note: NoteRow) => Extra;
  /** What holds no transaction (decoding and storing the audio), given the note's id; not run for a replay. */
  before?: (noteId: string) => Promise<void>;
  /** Undoes `before` when the note was not committed. */
  undo?: () => Promise<void>;
}

export type CreatedNoteData<Extra extends object> = {
  id: string;
  name: string;
  transcription_status: 'pending';
  created_at: string;
} & Extra;

export interface CreatedNoteAnswer<Extra extends object> {
  statusCode: number;
  body: { status: 'success'; data: CreatedNoteData<Extra> };
  replayed: boolean;
}

/**
 * The style the note is written in: the metadata's, else the server's default. `clinical` without a
 * drafter is refused (422) before anything is stored.
 */
export function noteStyleOf(
  deps: Pick<NewNoteDeps, 'defaultNoteStyle' | 'clinicalAvailable'>,
  metadata: UploadMetadata,
  fieldPrefix: string,
) {
  const noteStyle = metadata.note_style ?? deps.defaultNoteStyle;
  if (noteStyle === 'clinical' && !deps.clinicalAvailable) {
    throw new AppError('VALIDATION_ERROR', 'Clinical notes are not available: this server has no drafting provider', {
      field: `${fieldPrefix}note_style`,
      reason: 'no drafting provider is configured (DRAFTING_PROVIDER=none)',
    });
  }
  return noteStyle;
}

/**
 * Creates the note through `idempotent` (an earlier answer to the same Idempotency-Key is replayed
 * instead): in one transaction, its template is resolved, the clinic's quota charged (the clinic's
 * row lock), the row inserted, its job sent and its `created` event recorded. 201 with the note's
 * id, name, status and creation time. Whatever is refused leaves nothing behind.
 */
export async function createNewNote<Extra extends object = Record<never, never>>(
  deps: NewNoteDeps,
  caller: NotesCaller,
  request: NewNoteRequest<Extra>,
): Promise<CreatedNoteAnswer<Extra>> {
  const { metadata } = request;
  const noteStyle = noteStyleOf(deps, metadata, request.fieldPrefix);
  const { scope, reusedFor, key, fingerprint } = request.idempotency;
  const noteId = randomUUID();
  const outcome = await deps.idempotent<CreatedNoteAnswer<Extra>['body']>(
    { owner: caller.clinicId, scope, key, fingerprint, reusedFor },
    async (tx: Db) => {
      // A patient whose erasure is running gets no new note (the erasure would miss it).
      await refuseDuringErasure(caller.clinicId, metadata.external_id ?? null, tx);
      const template = await resolveNoteTemplate(caller.clinicId, metadata.template, tx, `${request.fieldPrefix}template`);
      if (request.chargedSeconds) await chargeClinicQuota(caller.clinicId, request.chargedSeconds(), tx);
      const note = await insertNote(
        {
          id: noteId,
          clinicId: caller.clinicId,
          name: metadata.name,
          gender: metadata.gender,
          externalId: metadata.external_id ?? null,
          metadata: metadata.metadata,
          noteStyle,
          species: metadata.species ?? null,
          template,
          // Else the clinic's day, by the same zone database that validated its `timezone` setting.
          visitDate: metadata.visit_date ?? dayIn(await clinicTimezone(caller.clinicId, tx), new Date()),
          ...request.audio(),
        },
        tx,
      );
      const { definition, startAfter } = request.job;
      await deps.jobs.send(definition, { noteId: note.id }, startAfter === undefined ? { tx } : { tx, startAfter });
      await recordNoteEvent(tx, note.id, 'created', caller, request.eventDetails);
      const data = {
        id: note.id,
        name: note.name,
        transcription_status: 'pending' as const,
        ...(request.answerData?.(note) as Extra),
        created_at: toTimestamp(note.createdAt),
      };
      return { statusCode: 201, body: { status: 'success' as const, data } };
    },
    { before: request.before && (() => request.before!(noteId)), undo: request.undo },
  );
  if (!outcome.replayed) notesCreated.inc();
  return outcome;
}

/** A received audio file, on disk: its first bytes, its path and its size. */
export interface ReceivedAudioFile {
  head: Buffer;
  path: string;
  bytes: number;
}

/**
 * The format (from the bytes) and duration of received audio: INVALID_AUDIO_FORMAT for
 * bytes no accepted format starts with, audio no parser reads, or a header that says more seconds
 * than the bytes can hold. The same check for an upload and for a live part.
 */
export async function probeReceivedAudio(audio: ReceivedAudioFile): Promise<{ format: AudioFormat; seconds: number }> {
  const sniffed = sniffAudioFormat(audio.head);
  if (!sniffed.format) throw invalidFormat(sniffed.received);
  const seconds = await probeDurationSeconds(audio.path);
  if (seconds === null) throw invalidFormat(`${sniffed.format} (unreadable or truncated)`);
  const most = mostSecondsIn(sniffed.format, audio.bytes);
  if (most !== null && seconds > most) {
    throw invalidFormat(
      `${sniffed.format} (its header says ${Math.round(seconds)} s; its ${audio.bytes} bytes hold at most ${Math.floor(most)} s)`,
    );
  }
  return { format: sniffed.format, seconds };
}

function invalidFormat(received: string): AppError {
  return new AppError('INVALID_AUDIO_FORMAT', `Unsupported audio format; send one of ${ACCEPTED_FORMATS.join(', ')}`, {
    expected: ACCEPTED_FORMATS,
    received,
  });
}
