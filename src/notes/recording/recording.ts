import type { Readable } from 'node:stream';
import type { AudioStorage, ByteRange } from '../../providers/storage/port.ts';
import type { NoteRow } from '../store/notes.repo.ts';

/** A note's recording as the audio route serves it: its size, its type, and any byte range of it. */
export interface Recording {
  size: number;
  contentType: string;
  /** The whole recording, or bytes `range.start`-`range.end` (inclusive), streamed from storage. */
  open(range?: ByteRange): Readable;
}

const CONTENT_TYPES: Record<NoteRow['audioFormat'], string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
};

/**
 * The one place that says which bytes are a note's recording: today the uploaded file, as stored
 * under `audioKey`. A note whose audio is stored otherwise (several parts joined) answers here
 * with its own size and `open`. Undefined when nothing is stored.
 */
export async function recordingOf(
  note: Pick<NoteRow, 'audioKey' | 'audioFormat' | 'audioBytes'>,
  storage: AudioStorage,
): Promise<Recording | undefined> {
  if (!note.audioKey || !(await storage.exists(note.audioKey))) return undefined;
  const key = note.audioKey;
  return {
    size: note.audioBytes,
    contentType: CONTENT_TYPES[note.audioFormat] ?? 'application/octet-stream',
    open: (range) => storage.open(key, range),
  };
}

/**
 * One part of a live note's recording (notes/live/), served as a recording of its own: what a live
 * note whose parts were not joined into one file hands out (GET /notes/{id}/parts/{n}/audio).
 * Undefined when storage no longer holds it.
 */
export async function partRecordingOf(
  part: { storageKey: string; format: NoteRow['audioFormat']; bytes: number },
  storage: AudioStorage,
): Promise<Recording | undefined> {
  if (!(await storage.exists(part.storageKey))) return undefined;
  return {
    size: part.bytes,
    contentType: CONTENT_TYPES[part.format] ?? 'application/octet-stream',
    open: (range) => storage.open(part.storageKey, range),
  };
}
