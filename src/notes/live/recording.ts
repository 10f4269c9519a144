import type { Readable } from 'node:stream';
import type { AudioStorage } from '../../providers/storage/port.ts';
import { AUDIO_CONTENT_TYPES, type AudioFormat } from '../../providers/transcription/port.ts';
import type { NoteRow } from '../store/notes.repo.ts';

/** A recording to serve: its bytes, size and media type. */
export interface LiveRecording {
  format: AudioFormat;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  /** The whole file; callers serving byte ranges skip what they do not send. */
  open(): Readable;
}

/**
 * The recording of a live note (its parts joined in order, one file written when the capture
 * closed: join-recording.job.ts), or null while there is none: still open, not joined yet, or
 * parts of different formats, which this service does not join (docs/notes-live.md). Once joined,
 * the note's audio columns name that file, as an upload's name the uploaded file.
 */
export function liveRecording(
  storage: AudioStorage,
  note: Pick<NoteRow, 'captureState' | 'audioKey' | 'audioFormat' | 'audioBytes' | 'audioSha256'>,
): LiveRecording | null {
  if (!note.captureState || note.captureState === 'open' || note.audioKey === '') return null;
  return {
    format: note.audioFormat,
    contentType: AUDIO_CONTENT_TYPES[note.audioFormat],
    sizeBytes: note.audioBytes,
    sha256: note.audioSha256,
    open: () => storage.open(note.audioKey),
  };
}
