import type { Readable } from 'node:stream';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import type { NotesCaller } from '../callers.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { findPart, type PartRow, partsOf } from '../live/parts.repo.ts';
import type { NoteRow } from '../store/notes.repo.ts';
import { noteOfClinic } from '../store/own-note.ts';
import { readRange } from './byte-range.ts';
import { partRecordingOf, type Recording, recordingOf } from './recording.ts';

export interface AudioDeps {
  db: Db;
  storage: AudioStorage;
  /** PUBLIC_BASE_URL: where a live note's parts are fetched (AUDIO_IN_PARTS). */
  publicBaseUrl: string;
}

export interface AudioAnswer {
  statusCode: 200 | 206;
  headers: Record<string, string>;
  body: Readable;
}

/**
 * A note's recording, whole or one byte range, streamed from storage (never read into memory).
 * `record` false (a HEAD request) leaves no `audio_fetched` event: no audio was handed out. A live
 * note whose parts are not joined into one file (capture still open, parts in different formats or
 * stream parameters, join not run yet) has no single recording: 409 AUDIO_IN_PARTS lists its parts
 * and where each is fetched (`fetchPart`).
 */
async function fetchAudio(
  deps: AudioDeps,
  caller: NotesCaller,
  input: { noteId: string; range: string | undefined; record: boolean },
): Promise<AudioAnswer> {
  const note = await noteOfClinic(caller, input.noteId, deps.db);
  if (note.audioDeletedAt) throw audioExpired(note.audioDeletedAt);
  const recording = await recordingOf(note, deps.storage);
  if (!recording) {
    const parts = note.captureState && !note.audioKey ? await partsOf(note.id, deps.db) : [];
    if (parts.length > 0) throw audioInParts(deps.publicBaseUrl, note, parts);
    throw new AppError('AUDIO_NOT_FOUND', 'No audio is stored for this note');
  }
  return serve(deps, caller, note.id, recording, input, {});
}

/** Part `n` of a live note's recording, as `fetchAudio` serves a whole recording (ranges, history). */
async function fetchPart(
  deps: AudioDeps,
  caller: NotesCaller,
  input: { noteId: string; part: number; range: string | undefined; record: boolean },
): Promise<AudioAnswer> {
  const note = await noteOfClinic(caller, input.noteId, deps.db);
  if (!note.captureState) {
    throw new AppError('CAPTURE_CLOSED', 'This note was uploaded in one piece: it has no parts (GET /notes/{id}/audio)', { live: false });
  }
  if (note.audioDeletedAt) throw audioExpired(note.audioDeletedAt);
  const part = await findPart(note.id, input.part, deps.db);
  const recording = part && (await partRecordingOf(part, deps.storage));
  if (!recording) throw new AppError('PART_NOT_FOUND', `Part ${input.part} of this note is not stored`, { part: input.part });
  return serve(deps, caller, note.id, recording, input, { part: input.part });
}

async function serve(
  deps: AudioDeps,
  caller: NotesCaller,
  noteId: string,
  recording: Recording,
  input: { range: string | undefined; record: boolean },
  event: Record<string, unknown>,
): Promise<AudioAnswer> {
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
      recordNoteEvent(tx, noteId, 'audio_fetched', caller, {
        ...event,
        range: asked.kind === 'partial' ? (input.range ?? null) : null,
      }),
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

/** A live note without one joined file: its recording is its parts, each fetched on its own. */
function audioInParts(publicBaseUrl: string, note: Pick<NoteRow, 'id' | 'captureState'>, parts: readonly PartRow[]): AppError {
  const open = note.captureState === 'open';
  return new AppError(
    'AUDIO_IN_PARTS',
    `This live note's recording is held in ${parts.length} part(s), not one file (${
      open
        ? 'the capture is still open'
        : 'the parts were not joined: they differ in format or stream parameters, or the join has not run yet'
    }): fetch each part from GET /notes/{id}/parts/{n}/audio`,
    {
      capture_state: open ? 'open' : 'closed',
      parts: parts.map((part) => ({
        part: part.part,
        format: part.format,
        bytes: part.bytes,
        seconds: Math.round(part.seconds * 1000) / 1000,
        url: `${publicBaseUrl}/notes/v1/notes/${note.id}/parts/${part.part}/audio`,
      })),
    },
  );
}

/** The recording was deleted by the clinic's audio retention: gone for good (410), and since when. */
export function audioExpired(deletedAt: Date): AppError {
  return new AppError('AUDIO_EXPIRED', "This note's recording was deleted by the clinic's audio retention", {
    deleted_at: toTimestamp(deletedAt),
  });
}

export function audioService(deps: AudioDeps) {
  return bindService(deps, { fetch: fetchAudio, fetchPart });
}

export type AudioService = ReturnType<typeof audioService>;
