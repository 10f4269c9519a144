import type { Readable } from 'node:stream';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import type { NotesCaller } from '../callers.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { noteOfClinic } from '../store/own-note.ts';
import { readRange } from './byte-range.ts';
import { recordingOf } from './recording.ts';

export interface AudioDeps {
  db: Db;
  storage: AudioStorage;
}

export interface AudioAnswer {
  statusCode: 200 | 206;
  headers: Record<string, string>;
  body: Readable;
}

/**
 * A note's recording, whole or one byte range, streamed from storage (never read into memory).
 * `record` false (a HEAD request) leaves no `audio_fetched` event: no audio was handed out.
 */
async function fetchAudio(
  deps: AudioDeps,
  caller: NotesCaller,
  input: { noteId: string; range: string | undefined; record: boolean },
): Promise<AudioAnswer> {
  const note = await noteOfClinic(caller, input.noteId, deps.db);
  if (note.audioDeletedAt) throw audioExpired(note.audioDeletedAt);
  const recording = await recordingOf(note, deps.storage);
  if (!recording) throw new AppError('AUDIO_NOT_FOUND', 'No audio is stored for this note');
  const asked = readRange(input.range, recording.size);
  if (asked.kind === 'unsatisfiable') {
    throw new AppError(
      'RANGE_NOT_SATISFIABLE',
      `The Range header asks for bytes this recording does not have (it has ${recording.size})`,
      { size: recording.size, range: input.range },
      { 'content-range': `bytes */${recording.size}` },
    );
  }
  const headers: Record<string, string> = {
    'content-type': recording.contentType,
    'accept-ranges': 'bytes',
    // Patient data: no shared cache may keep a copy.
    'cache-control': 'private, no-store',
  };
  if (input.record) {
    await deps.db.transaction((tx) =>
      recordNoteEvent(tx, note.id, 'audio_fetched', caller, { range: asked.kind === 'partial' ? (input.range ?? null) : null }),
    );
  }
  if (asked.kind === 'whole') {
    return { statusCode: 200, headers: { ...headers, 'content-length': String(recording.size) }, body: recording.open() };
  }
  const { start, end } = asked.range;
  return {
    statusCode: 206,
    headers: { ...headers, 'content-length': String(end - start + 1), 'content-range': `bytes ${start}-${end}/${recording.size}` },
    body: recording.open(asked.range),
  };
}

/** The recording was deleted by the clinic's audio retention: gone for good (410), and since when. */
export function audioExpired(deletedAt: Date): AppError {
  return new AppError('AUDIO_EXPIRED', "This note's recording was deleted by the clinic's audio retention", {
    deleted_at: toTimestamp(deletedAt),
  });
}

export function audioService(deps: AudioDeps) {
  return bindService(deps, { fetch: fetchAudio });
}

export type AudioService = ReturnType<typeof audioService>;
