import { createHash, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { ACCEPTED_FORMATS, mostSecondsIn, probeDurationSeconds, sniffAudioFormat } from '../../audio/format.ts';
import { bindService } from '../../platform/bind-service.ts';
import type { Idempotent } from '../../platform/db/idempotency.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import { notesCreated } from '../../platform/metrics/notes.ts';
import type { NoteStyle } from '../../providers/drafting/port.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import type { AudioFormat } from '../../providers/transcription/port.ts';
import type { NotesCaller } from '../callers.ts';
import { chargeClinicQuota } from '../clinics/quota.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import type { transcribeJob } from '../processing/transcribe.job.ts';
import { refuseDuringErasure } from '../store/locked.ts';
import { insertNote } from '../store/notes.repo.ts';
import { resolveNoteTemplate } from '../templates/resolve-template.ts';
import type { ReceivedUpload } from './receive-upload.ts';
import { parseUploadMetadata } from './upload-metadata.ts';

export interface CreateNoteDeps {
  idempotent: Idempotent;
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
 * with its job in one transaction (through `idempotent`, which replays an earlier answer to the
 * same Idempotency-Key instead). Whatever is rejected leaves nothing behind: no row, no audio, no
 * job. The temporary upload file is always removed.
 */
async function createNote(
  deps: CreateNoteDeps,
  caller: NotesCaller,
  upload: ReceivedUpload,
  idempotencyKey: string | undefined,
): Promise<CreatedNoteResponse> {
  const audio = upload.audio;
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
    const request = { owner: caller.clinicId, scope: SCOPE, key: idempotencyKey, fingerprint, reusedFor: 'a different upload' };

    const noteId = randomUUID();
    let stored: { key: string; format: AudioFormat; duration: number } | undefined;
    const outcome = await deps.idempotent<CreatedNoteResponse['body']>(
      request,
      async (tx) => {
        const { key, format, duration } = stored!;
        await refuseDuringErasure(caller.clinicId, metadata.external_id ?? null, tx);
        const template = await resolveNoteTemplate(caller.clinicId, metadata.template, tx);
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
            species: metadata.species ?? null,
            template,
            audioName: audio.fileName,
            audioKey: key,
            audioFormat: format,
            audioBytes: audio.bytes,
            audioSha256: audio.sha256,
            audioDurationSeconds: duration,
          },
          tx,
        );
        await deps.jobs.send(deps.transcribe, { noteId: note.id }, { tx });
        await recordNoteEvent(tx, note.id, 'created', caller);
        const data = { id: note.id, name: note.name, transcription_status: 'pending' as const, created_at: toTimestamp(note.createdAt) };
        return { statusCode: 201, body: { status: 'success' as const, data } };
      },
      {
        // Decoding the audio and storing it hold no transaction, and a replay does neither.
        before: async () => {
          const sniffed = sniffAudioFormat(audio.head);
          if (!sniffed.format) throw invalidFormat(sniffed.received);
          const duration = await probeDurationSeconds(audio.path);
          if (duration === null) throw invalidFormat(`${sniffed.format} (unreadable or truncated)`);
          const most = mostSecondsIn(sniffed.format, audio.bytes);
          if (most !== null && duration > most) {
            throw invalidFormat(
              `${sniffed.format} (its header says ${Math.round(duration)} s; its ${audio.bytes} bytes hold at most ${Math.floor(most)} s)`,
            );
          }
          if (duration < deps.minSeconds || duration > deps.maxSeconds) {
            throw new AppError('AUDIO_DURATION_INVALID', `The audio must last between ${deps.minSeconds} and ${deps.maxSeconds} seconds`, {
              duration: Math.round(duration * 100) / 100,
              min_duration: deps.minSeconds,
              max_duration: deps.maxSeconds,
            });
          }
          const key = `${caller.clinicId}/${noteId}.${sniffed.format}`;
          await deps.storage.putFile(key, audio.path);
          stored = { key, format: sniffed.format, duration };
        },
        undo: async () => {
          if (stored) await deps.storage.delete(stored.key).catch(() => {});
        },
      },
    );
    if (!outcome.replayed) notesCreated.inc();
    return outcome;
  } finally {
    if (audio) await rm(audio.path, { force: true });
  }
}

function invalidFormat(received: string): AppError {
  return new AppError('INVALID_AUDIO_FORMAT', `Unsupported audio format; send one of ${ACCEPTED_FORMATS.join(', ')}`, {
    expected: ACCEPTED_FORMATS,
    received,
  });
}

/** The upload, bound once to its dependencies: `upload.create(caller, receivedUpload, idempotencyKey)`. */
export function uploadService(deps: CreateNoteDeps) {
  return bindService(deps, { create: createNote });
}

export type UploadService = ReturnType<typeof uploadService>;
