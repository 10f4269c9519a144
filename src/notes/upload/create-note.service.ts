import { createHash, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Db } from '../../platform/db/client.ts';
import { findIdempotentResponse, recordIdempotentResponse } from '../../platform/db/idempotency.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import { notesCreated } from '../../platform/metrics/notes.ts';
import type { NoteStyle } from '../../providers/drafting/port.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import type { NotesCaller } from '../callers.ts';
import { chargeClinicQuota } from '../clinics/quota.ts';
import { insertNote } from '../notes/notes.repo.ts';
import type { transcribeJob } from '../pipeline/transcribe.job.ts';
import { ACCEPTED_FORMATS, probeDurationSeconds, sniffAudioFormat } from './audio-format.ts';
import type { ReceivedUpload } from './receive-upload.ts';
import { parseUploadMetadata } from './upload-metadata.ts';

export interface CreateNoteDeps {
  db: Db;
  jobs: JobQueue;
  storage: AudioStorage;
  transcribe: ReturnType<typeof transcribeJob>;
  minSeconds: number;
  maxSeconds: number;
  /** The style of a note whose metadata does not choose one (NOTE_STYLE). */
  defaultNoteStyle: NoteStyle;
  /** Whether a drafter is configured: without one, `clinical` is refused at upload. */
  clinicalAvailable: boolean;
}

export interface CreatedNoteResponse {
  statusCode: number;
  body: { status: 'success'; data: { id: string; name: string; transcription_status: 'pending'; created_at: string } };
  replayed: boolean;
}

const SCOPE = 'POST /notes';

/**
 * Validates a received upload and, when everything holds, stores the audio and creates the note
 * with its job in one transaction. Whatever is rejected leaves nothing behind: no row, no audio,
 * no job. The temporary upload file is always removed.
 */
export async function createNote(
  deps: CreateNoteDeps,
  caller: NotesCaller,
  upload: ReceivedUpload,
  idempotencyKey: string | undefined,
): Promise<CreatedNoteResponse> {
  const audio = upload.audio;
  let storedKey: string | null = null;
  try {
    if (!audio) throw new AppError('VALIDATION_ERROR', 'The audio file part is required', { field: 'audio', reason: 'required' });
    const metadataText = upload.fields.metadata;
    const metadata = parseUploadMetadata(metadataText);
    const noteStyle = metadata.note_style ?? deps.defaultNoteStyle;
    if (noteStyle === 'clinical' && !deps.clinicalAvailable) {
      throw new AppError('VALIDATION_ERROR', 'Clinical notes are not available: this server has no drafting provider', {
        field: 'metadata.note_style',
        reason: 'no drafting provider is configured (DRAFTING_PROVIDER=none)',
      });
    }
    const fingerprint = createHash('sha256')
      .update(audio.sha256)
      .update('\n')
      .update(metadataText ?? '')
      .digest('hex');

    if (idempotencyKey) {
      const previous = await findIdempotentResponse(caller.clinicId, SCOPE, idempotencyKey, deps.db);
      if (previous) return replay(previous, fingerprint);
    }

    const sniffed = sniffAudioFormat(audio.head);
    if (!sniffed.format) throw invalidFormat(sniffed.received);
    const duration = await probeDurationSeconds(audio.path);
    if (duration === null) throw invalidFormat(`${sniffed.format} (unreadable or truncated)`);
    if (duration < deps.minSeconds || duration > deps.maxSeconds) {
      throw new AppError('AUDIO_DURATION_INVALID', `The audio must last between ${deps.minSeconds} and ${deps.maxSeconds} seconds`, {
        duration: Math.round(duration * 100) / 100,
        min_duration: deps.minSeconds,
        max_duration: deps.maxSeconds,
      });
    }

    const noteId = randomUUID();
    storedKey = `${caller.clinicId}/${noteId}.${sniffed.format}`;
    await deps.storage.putFile(storedKey, audio.path);

    const outcome = await deps.db.transaction(async (tx) => {
      await chargeClinicQuota(caller.clinicId, duration, tx);
      const note = await insertNote(
        {
          id: noteId,
          clinicId: caller.clinicId,
          name: metadata.name,
          gender: metadata.gender,
          externalId: metadata.external_id ?? null,
          metadata: metadata.metadata,
          noteStyle,
          audioName: audio.fileName,
          audioKey: storedKey ?? '',
          audioFormat: sniffed.format,
          audioBytes: audio.bytes,
          audioSha256: audio.sha256,
          audioDurationSeconds: duration,
        },
        tx,
      );
      const body = {
        status: 'success' as const,
        data: { id: note.id, name: note.name, transcription_status: 'pending' as const, created_at: toTimestamp(note.createdAt) },
      };
      if (idempotencyKey) {
        const recorded = await recordIdempotentResponse(
          {
            clinicId: caller.clinicId,
            scope: SCOPE,
            key: idempotencyKey,
            fingerprint,
            statusCode: 201,
            response: body,
          },
          tx,
        );
        // A concurrent request with the same key won the race: undo ours, answer with theirs.
        if (!recorded) throw new LostIdempotencyRace();
      }
      await deps.jobs.send(deps.transcribe, { noteId: note.id }, { tx });
      return { statusCode: 201, body, replayed: false };
    });
    storedKey = null;
    notesCreated.inc();
    return outcome;
  } catch (error) {
    if (storedKey) await deps.storage.delete(storedKey).catch(() => {});
    if (error instanceof LostIdempotencyRace && idempotencyKey && audio) {
      const previous = await findIdempotentResponse(caller.clinicId, SCOPE, idempotencyKey, deps.db);
      const fingerprint = createHash('sha256')
        .update(audio.sha256)
        .update('\n')
        .update(upload.fields.metadata ?? '')
        .digest('hex');
      if (previous) return replay(previous, fingerprint);
    }
    throw error;
  } finally {
    if (audio) await rm(audio.path, { force: true });
  }
}

class LostIdempotencyRace extends Error {}

function replay(previous: { fingerprint: string; statusCode: number; response: unknown }, fingerprint: string): CreatedNoteResponse {
  if (previous.fingerprint !== fingerprint) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different upload', {
      field: 'Idempotency-Key',
      reason: 'reused with a different request',
    });
  }
  return { statusCode: previous.statusCode, body: previous.response as CreatedNoteResponse['body'], replayed: true };
}

function invalidFormat(received: string): AppError {
  return new AppError('INVALID_AUDIO_FORMAT', `Unsupported audio format; send one of ${ACCEPTED_FORMATS.join(', ')}`, {
    expected: ACCEPTED_FORMATS,
    received,
  });
}
