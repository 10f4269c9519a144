import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { bindService } from '../../platform/bind-service.ts';
import { AppError } from '../../platform/errors.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import type { AudioFormat } from '../../providers/transcription/port.ts';
import type { NotesCaller } from '../callers.ts';
import type { transcribeJob } from '../processing/transcribe.job.ts';
import { type CreatedNoteAnswer, createNewNote, type NewNoteDeps, probeReceivedAudio } from './new-note.ts';
import type { ReceivedUpload } from './receive-upload.ts';
import { parseUploadMetadata } from './upload-metadata.ts';

const SCOPE = 'POST /notes';

export interface CreateNoteDeps extends NewNoteDeps {
  storage: AudioStorage;
  transcribe: ReturnType<typeof transcribeJob>;
  minSeconds: number;
  maxSeconds: number;
}

export type CreatedNoteResponse = CreatedNoteAnswer<Record<never, never>>;

/** An upload as the route received it, and the request's Idempotency-Key. */
export interface CreateNoteInput {
  upload: ReceivedUpload;
  idempotencyKey: string | undefined;
}

/**
 * Validates a received upload and, when everything holds, stores the audio and creates the note
 * with its job in one transaction (new-note.ts, through `idempotent`, which replays an earlier
 * answer to the same Idempotency-Key instead). Whatever is rejected leaves nothing behind: no row,
 * no audio, no job. The temporary upload file is always removed.
 */
async function createNote(
  deps: CreateNoteDeps,
  caller: NotesCaller,
  { upload, idempotencyKey }: CreateNoteInput,
): Promise<CreatedNoteResponse> {
  const audio = upload.audio;
  try {
    if (!audio) throw new AppError('VALIDATION_ERROR', 'The audio file part is required', { field: 'audio', reason: 'required' });
    const metadataText = upload.fields.metadata;
    const metadata = parseUploadMetadata(metadataText);
    const fingerprint = createHash('sha256')
      .update(audio.sha256)
      .update('\n')
      .update(metadataText ?? '')
      .digest('hex');
    let stored: { key: string; format: AudioFormat; duration: number } | undefined;
    return await createNewNote(deps, caller, {
      metadata,
      fieldPrefix: 'metadata.',
      idempotency: { scope: SCOPE, reusedFor: 'a different upload', key: idempotencyKey, fingerprint },
      audio: () => ({
        audioName: audio.fileName,
        audioKey: stored!.key,
        audioFormat: stored!.format,
        audioBytes: audio.bytes,
        audioSha256: audio.sha256,
        audioDurationSeconds: stored!.duration,
      }),
      chargedSeconds: () => stored!.duration,
      job: { definition: deps.transcribe },
      // Decoding the audio and storing it hold no transaction, and a replay does neither.
      before: async (noteId) => {
        const { format, seconds: duration } = await probeReceivedAudio(audio);
        if (duration < deps.minSeconds || duration > deps.maxSeconds) {
          throw new AppError('AUDIO_DURATION_INVALID', `The audio must last between ${deps.minSeconds} and ${deps.maxSeconds} seconds`, {
            duration: Math.round(duration * 100) / 100,
            min_duration: deps.minSeconds,
            max_duration: deps.maxSeconds,
          });
        }
        const key = `${caller.clinicId}/${noteId}.${format}`;
        await deps.storage.putFile(key, audio.path);
        stored = { key, format, duration };
      },
      undo: async () => {
        if (stored) await deps.storage.delete(stored.key).catch(() => {});
      },
    });
  } finally {
    if (audio) await rm(audio.path, { force: true });
  }
}

/** The upload, bound once to its dependencies: `upload.create(caller, { upload: received, idempotencyKey })`. */
export function uploadService(deps: CreateNoteDeps) {
  return bindService(deps, { create: createNote });
}

export type UploadService = ReturnType<typeof uploadService>;
