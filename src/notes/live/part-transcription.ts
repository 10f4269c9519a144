// Transcription of a live note part by part, reusing long audio's overlap and stitch
// (docs/notes-live.md): each part is sent with the last TRANSCRIPTION_CHUNK_OVERLAP_SECONDS of the
// part before it joined in front (same format and stream parameters: a packet copy, no
// re-encoding), so a word cut at the boundary is whole in one request; at the end the parts'
// transcripts are stitched exactly as the overlapping chunks of a long upload are. A part whose
// predecessor is in another format (or other stream parameters) is sent alone: this service
// re-encodes no audio, so that boundary has no overlap; its transcripts are put one after the
// other, and a word cut there, which each side's model writes whole, is kept once by its time
// (stitch.ts, joinAtSeams).

import { createReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChunkRange, clock, type RequestLimits } from '../../audio/chunk-plan.ts';
import { AudioJoinMismatch, joinAudio } from '../../audio/join.ts';
import { joinAtSeams, stitch } from '../../audio/stitch.ts';
import type { Db } from '../../platform/db/client.ts';
import type { StoredChunkTranscript } from '../../platform/db/schema/index.ts';
import { eachAtMost } from '../../platform/each-at-most.ts';
import type { Logger } from '../../platform/logger.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import {
  AUDIO_CONTENT_TYPES,
  type Transcript,
  type TranscriptionProvider,
  type TranscriptSegment,
} from '../../providers/transcription/port.ts';
import { copyStored, failedAt, unreadable } from '../processing/chunked-transcription.ts';
import { noteVocabulary } from '../processing/transcription-vocabulary.ts';
import type { NoteRow } from '../store/notes.repo.ts';
import { transcribePartAudio } from './part-requests.ts';
import {
  leasePart,
  type PartRow,
  partsOf,
  partTranscriptState,
  releasePartLease,
  renewPartLease,
  savePartTranscript,
} from './parts.repo.ts';

export interface PartTranscriptionDeps {
  db: Db;
  storage: AudioStorage;
  transcriber: TranscriptionProvider;
  /** The server's request limits; null = a provider that hears no audio (the sandbox). */
  limits: RequestLimits | null;
  /** Parent of the per-request temporary directories. */
  tempRoot: string;
  retryDelaySeconds: number;
  /** How long a worker's hold on a part lasts unless renewed (TRANSCRIPTION_HEARTBEAT_SECONDS). */
  leaseSeconds: number;
  /** LIVE_PART_REQUEST_SECONDS (part-requests.ts). */
  pieceSeconds: number;
}

/** How often the note's job looks whether a part another worker is sending has its transcript. */
const IN_FLIGHT_POLL_MS = 50;

type Log = Pick<Logger, 'info' | 'warn'>;

/** What of the note a part is sent with: its id, and what its prompt's vocabulary is made of. */
export type LiveNoteFacts = Pick<NoteRow, 'id' | 'name' | 'species' | 'clinicId'>;

/** Where a part's request starts before the part: the seconds of the previous part sent with it. */
const overlapOf = (deps: PartTranscriptionDeps) => deps.limits?.overlapSeconds ?? 0;

/**
 * Transcribes the part under its lease (parts.repo.ts leasePart), so that no two workers send the
 * same part: null when another worker holds it or its transcript is already stored.
 */
export async function transcribePartOnce(
  deps: PartTranscriptionDeps,
  note: LiveNoteFacts,
  part: PartRow,
  previous: PartRow | undefined,
  signal: AbortSignal,
  logger: Log,
): Promise<StoredChunkTranscript | null> {
  if (!(await leasePart(note.id, part.part, deps.leaseSeconds, deps.db))) return null;
  const renewal = setInterval(
    () => renewPartLease(note.id, part.part, deps.leaseSeconds, deps.db).catch(() => undefined),
    (deps.leaseSeconds * 1000) / 3,
  );
  try {
    return await transcribePart(deps, note, part, previous, signal, logger);
  } catch (error) {
    await releasePartLease(note.id, part.part, deps.db).catch(() => undefined);
    throw error;
  } finally {
    clearInterval(renewal);
  }
}

/**
 * The part's transcript: the one another worker is fetching right now (usually the last part's own
 * job, sent when it arrived moments before `complete`) is waited for instead of sent twice; a part
 * nobody holds is sent here.
 */
async function partTranscript(
  deps: PartTranscriptionDeps,
  note: LiveNoteFacts,
  part: PartRow,
  previous: PartRow | undefined,
  signal: AbortSignal,
  logger: Log,
): Promise<{ transcript: StoredChunkTranscript; overlapSeconds: number }> {
  for (;;) {
    const sent = await transcribePartOnce(deps, note, part, previous, signal, logger);
    if (sent) return { transcript: sent, overlapSeconds: -sent.offsetSeconds };
    const state = await partTranscriptState(note.id, part.part, deps.db);
    if (!state) throw new ProviderError('TRANSCRIPTION_AUDIO_UNREADABLE', `Part ${part.part} is no longer held`, { retryable: false });
    if (state.transcript) return { transcript: state.transcript, overlapSeconds: state.overlapSeconds ?? 0 };
    if (state.leased) await sleep(IN_FLIGHT_POLL_MS, undefined, { signal });
  }
}

/**
 * Transcribes part `part.part` (with the end of `previous` in front when it can be joined) and
 * stores its transcript, times relative to the part's start. `previous` undefined: part 1, or a
 * part whose predecessor never came (an auto-closed capture).
 */
export async function transcribePart(
  deps: PartTranscriptionDeps,
  note: LiveNoteFacts,
  part: PartRow,
  previous: PartRow | undefined,
  signal: AbortSignal,
  logger: Log,
): Promise<StoredChunkTranscript> {
  const dir = path.join(deps.tempRoot, `${note.id}-${part.part}-${process.pid}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  try {
    const own = path.join(dir, `part.${part.format}`);
    await copyStored(deps.storage, part.storageKey, own, signal, 'part');
    let file = own;
    let overlap = 0;
    let duration = part.seconds;
    if (previous && previous.format !== part.format && overlapOf(deps) > 0) {
      // Its end cannot be put in this part's format without re-encoding: no overlap at this boundary.
      logger.info({ noteId: note.id, part: part.part, reason: `part ${previous.part} is ${previous.format}` }, 'part sent without overlap');
    } else if (previous && overlapOf(deps) > 0) {
      const before = path.join(dir, `previous.${previous.format}`);
      await copyStored(deps.storage, previous.storageKey, before, signal, 'part');
      const joined = path.join(dir, `joined.${part.format}`);
      try {
        const [tail, whole] = await joinAudio(
          part.format,
          [
            { path: before, start: Math.max(0, previous.seconds - overlapOf(deps)), end: Number.POSITIVE_INFINITY },
            { path: own, start: 0, end: Number.POSITIVE_INFINITY },
          ],
          joined,
        );
        file = joined;
        overlap = tail!.durationSeconds;
        duration = tail!.durationSeconds + whole!.durationSeconds;
      } catch (error) {
        // Other stream parameters (or a layout this service does not join): no overlap at this boundary.
        if (!(error instanceof AudioJoinMismatch)) throw unreadable(error, `part ${part.part}`);
        logger.info({ noteId: note.id, part: part.part, reason: (error as Error).message }, 'part sent without overlap');
      }
    }
    const transcript = await transcribePartAudio(
      { ...deps, limits: deps.limits! },
      {
        openAudio: () => createReadStream(file),
        audioFile: file,
        fileName: `${note.id}-part-${part.part}.${part.format}`,
        format: part.format,
        contentType: AUDIO_CONTENT_TYPES[part.format],
        sizeBytes: (await stat(file)).size,
        durationSeconds: duration,
        sha256: part.sha256,
        sandbox: { patientName: note.name },
        // The words said just before this part, when its predecessor's transcript is held (parts are
        // sent as they arrive, so it usually is).
        prompt: {
          terms: await noteVocabulary(note, deps.db),
          ...(previous?.transcript?.text ? { preceding: previous.transcript.text } : {}),
        },
      },
      dir,
      signal,
      logger,
      { noteId: note.id, part: part.part },
    );
    const stored: StoredChunkTranscript = {
      offsetSeconds: -overlap,
      text: transcript.text,
      language: transcript.language,
      segments: transcript.segments,
      model: transcript.model,
    };
    await savePartTranscript(note.id, part.part, stored, overlap, deps.db);
    return stored;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The whole transcript of a closed live note: the parts not transcribed yet are sent now (a few at
 * a time, as long audio's chunks), then every part's transcript is placed at its part's start in
 * the recording (the held parts joined in order) and stitched.
 */
export async function transcribeLiveNote(
  deps: PartTranscriptionDeps,
  note: NoteRow,
  signal: AbortSignal,
  logger: Log,
): Promise<Transcript> {
  const parts = await partsOf(note.id, deps.db);
  if (parts.length === 0) throw new ProviderError('TRANSCRIPTION_AUDIO_UNREADABLE', 'The live note has no parts', { retryable: false });
  const starts = cumulativeStarts(parts);
  if (!deps.limits) {
    // A provider that hears no audio (the sandbox) writes one consultation for the whole recording.
    const first = parts[0]!;
    return deps.transcriber.transcribe(
      {
        openAudio: () => deps.storage.open(first.storageKey),
        fileName: `${note.id}.${first.format}`,
        format: first.format,
        contentType: AUDIO_CONTENT_TYPES[first.format],
        sizeBytes: note.audioBytes,
        durationSeconds: note.audioDurationSeconds,
        sha256: first.sha256,
        sandbox: { patientName: note.name },
      },
      signal,
    );
  }
  const missing = parts.filter((part) => !part.transcript);
  logger.info({ noteId: note.id, parts: parts.length, missing: missing.length }, 'transcribing live note');
  await eachAtMost(
    missing,
    deps.limits.concurrency,
    signal,
    async (part, both) => {
      const index = parts.indexOf(part);
      const previous = index > 0 && parts[index - 1]!.part === part.part - 1 ? parts[index - 1] : undefined;
      const held = await partTranscript(deps, note, part, previous, both, logger);
      part.transcript = held.transcript;
      part.overlapSeconds = held.overlapSeconds;
    },
    (error, part) => {
      const start = starts[parts.indexOf(part)]!;
      return failedAt(error, `Part ${part.part} (${clock(start)}-${clock(start + part.seconds)} of the recording)`);
    },
  );
  return {
    ...stitchParts(parts, starts),
    durationSeconds: note.audioDurationSeconds,
    provider: deps.transcriber.name,
    model: parts.find((part) => part.transcript?.model)?.transcript?.model ?? null,
  };
}

/** Where each held part starts in the recording: the parts before it joined in order. */
function cumulativeStarts(parts: PartRow[]): number[] {
  let at = 0;
  return parts.map((part) => {
    const start = at;
    at += part.seconds;
    return start;
  });
}

/**
 * The parts' transcripts as one: a run of parts each sent with its predecessor's end is stitched as
 * long audio's overlapping chunks are (chunk = [part start − overlap, part end]); runs are put one
 * after the other where a part was sent without overlap, a word cut at that seam and written by
 * both sides kept once (stitch.ts, joinAtSeams).
 */
export function stitchParts(parts: PartRow[], starts: number[]): { text: string; language: string | null; segments: TranscriptSegment[] } {
  const runs: { ranges: ChunkRange[]; transcripts: StoredChunkTranscript[] }[] = [];
  // Where each run after the first starts, or null when the part before it is missing (an auto-closed capture).
  const seams: (number | null)[] = [];
  for (const [i, part] of parts.entries()) {
    const overlap = part.overlapSeconds ?? 0;
    if (i === 0 || overlap <= 0) {
      if (i > 0) seams.push(parts[i - 1]!.part === part.part - 1 ? starts[i]! : null);
      runs.push({ ranges: [], transcripts: [] });
    }
    const run = runs.at(-1)!;
    const start = starts[i]!;
    run.ranges.push({ index: run.ranges.length, start: start - overlap, end: start + part.seconds });
    run.transcripts.push({ ...part.transcript!, offsetSeconds: start + part.transcript!.offsetSeconds });
  }
  return joinAtSeams(
    runs.map((run) => stitch(run.ranges, run.transcripts)),
    seams,
  );
}
