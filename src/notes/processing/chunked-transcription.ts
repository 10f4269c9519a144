// Transcription of a note's audio within the server's request limits: audio over a limit is cut
// into overlapping chunks (packet copies, no re-encoding) that are sent a few at a time, each with
// its own retries; each chunk's transcript is stored as it arrives, so a later attempt sends only
// the chunks still missing. Temporary files live in one directory per note, removed afterwards
// (and by the next attempt or any later job when a crash left them).

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChunkRange, clock, planChunks, type RequestLimits } from '../../audio/chunk-plan.ts';
import { AudioSplitError, type AudioSplitter, openSplitter } from '../../audio/split.ts';
import { type ChunkTranscript, stitch } from '../../audio/stitch.ts';
import type { Db } from '../../platform/db/client.ts';
import { eachAtMost } from '../../platform/each-at-most.ts';
import type { Logger } from '../../platform/logger.ts';
import { transcriptionChunks } from '../../platform/metrics/notes.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import {
  AUDIO_CONTENT_TYPES,
  type Transcript,
  type TranscriptionInput,
  type TranscriptionProvider,
} from '../../providers/transcription/port.ts';
import type { NoteRow } from '../store/notes.repo.ts';
import { recordChunkPlan, saveChunkTranscript } from './chunks.repo.ts';
import { CHUNK_TRIES, chunkRetryDelayMs } from './retry-budget.ts';
import { noteVocabulary } from './transcription-vocabulary.ts';

export interface ChunkedTranscriptionDeps {
  db: Db;
  storage: AudioStorage;
  transcriber: TranscriptionProvider;
  /** The server's request limits; null = send every audio whole (the sandbox). */
  limits: RequestLimits | null;
  /** Parent of the per-note temporary directories. */
  tempRoot: string;
  /** First delay between tries of one chunk (retry-budget.ts). */
  retryDelaySeconds: number;
}

export async function transcribeNoteAudio(
  deps: ChunkedTranscriptionDeps,
  note: NoteRow,
  signal: AbortSignal,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<Transcript> {
  const input: TranscriptionInput = {
    openAudio: () => deps.storage.open(note.audioKey),
    fileName: note.audioName ?? `${note.id}.${note.audioFormat}`,
    format: note.audioFormat,
    contentType: AUDIO_CONTENT_TYPES[note.audioFormat],
    sizeBytes: note.audioBytes,
    durationSeconds: note.audioDurationSeconds,
    sha256: note.audioSha256,
    sandbox: { patientName: note.name },
    prompt: { terms: await noteVocabulary(note, deps.db) },
  };
  const plan = deps.limits ? planWithinLimits(note.audioDurationSeconds, note.audioBytes, deps.limits) : null;
  transcriptionChunks.observe(plan?.length ?? 1);
  if (!plan || plan.length === 1) return deps.transcriber.transcribe(input, signal);

  const done = await recordChunkPlan(note.id, plan, deps.db);
  const dir = path.join(deps.tempRoot, note.id);
  // A crashed attempt at this note may have left its files: start clean. Those of other notes whose
  // jobs died go with the process-wide sweep of DATA_DIR/tmp (temp-dir.ts, TempFileSweeper).
  await rm(dir, { recursive: true, force: true });
  try {
    const missing = plan.filter((chunk) => !done.has(chunk.index));
    logger.info({ noteId: note.id, chunks: plan.length, missing: missing.length }, 'transcribing in chunks');
    const source = path.join(dir, `source.${note.audioFormat}`);
    if (missing.length > 0) {
      await mkdir(dir, { recursive: true });
      await copyStored(deps.storage, note.audioKey, source, signal);
    }
    const heard = await transcribePieces(
      deps,
      {
        input: { ...input, audioFile: source },
        plan,
        dir,
        done,
        where: { noteId: note.id },
        keep: (chunk, transcript) => saveChunkTranscript(note.id, chunk.index, transcript, deps.db),
        describeFailure: (error, chunk) =>
          failedAt(error, `Chunk ${chunk.index + 1} of ${plan.length} (${clock(chunk.start)}-${clock(chunk.end)} of the audio)`),
      },
      signal,
      logger,
    );
    // The whole audio's duration, not the sum of chunks that overlap.
    return { ...heard, durationSeconds: note.audioDurationSeconds, provider: deps.transcriber.name };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** planChunks, its refusal as the provider error a note fails with. */
export function planWithinLimits(durationSeconds: number, sizeBytes: number, limits: RequestLimits): ChunkRange[] {
  try {
    return planChunks(durationSeconds, sizeBytes, limits);
  } catch (error) {
    // Only a byte limit far below any real server's gets here; retrying cannot help.
    throw new ProviderError(
      'TRANSCRIPTION_LIMITS_TOO_SMALL',
      `The audio cannot be cut to the request limits: ${(error as Error).message}`,
      {
        retryable: false,
      },
    );
  }
}

/** What the server heard in one audio file, times relative to the start of that file. */
export type HeardAudio = Omit<ChunkTranscript, 'offsetSeconds' | 'model'> & { model: string | null };

/** One audio file on disk (`input.audioFile`) being cut into the pieces of `plan`, each cut into `dir` just before it is sent. */
export interface CutAudio {
  input: TranscriptionInput & { audioFile: string };
  plan: ChunkRange[];
  dir: string;
  /** Said in the log line of each retry, with the piece's index. */
  where: Record<string, unknown>;
}

export interface PieceRun extends CutAudio {
  /** The transcripts already held, by piece index: those pieces are not sent again. Each new one is added. */
  done: Map<number, ChunkTranscript>;
  /** Keeps a piece's transcript (stores it) as soon as it arrives, so a later attempt does not send it again. */
  keep?: (piece: ChunkRange, transcript: ChunkTranscript) => Promise<void>;
  /** The error a piece that failed for good fails the whole audio with. */
  describeFailure?: (error: unknown, piece: ChunkRange) => unknown;
}

/**
 * The core of long audio and of a long live part: sends the pieces of `plan` that `done` lacks, a
 * few at a time (the server's concurrency), each cut out of the file just before it is sent and
 * tried up to CHUNK_TRIES times (transcribeWithRetries); the first piece that fails for good stops
 * the others, and what they already received is kept. Then the pieces' transcripts are stitched
 * into one, times relative to the start of the file.
 */
export async function transcribePieces(
  deps: Pick<ChunkedTranscriptionDeps, 'transcriber' | 'retryDelaySeconds'> & { limits: RequestLimits | null },
  run: PieceRun,
  signal: AbortSignal,
  logger: Pick<Logger, 'warn'>,
): Promise<HeardAudio> {
  const missing = run.plan.filter((piece) => !run.done.has(piece.index));
  if (missing.length > 0) {
    const splitter = await openSplitter(run.input.audioFile, run.input.format).catch((error) => {
      throw unreadable(error);
    });
    try {
      await eachAtMost(
        missing,
        deps.limits!.concurrency,
        signal,
        async (piece, both) => {
          const transcript = await transcribeCut(deps, run, splitter, piece, both, logger, precedingText(run, piece.index));
          await run.keep?.(piece, transcript);
          run.done.set(piece.index, transcript);
        },
        run.describeFailure,
      );
    } finally {
      splitter.close();
    }
  }
  const transcripts = run.plan.map((piece) => run.done.get(piece.index)!);
  return { ...stitch(run.plan, transcripts), model: transcripts.find((transcript) => transcript.model)?.model ?? null };
}

/**
 * The words heard just before piece `index`, for its prompt: the previous piece's transcript when it
 * is held by the time this piece is sent (pieces go a few at a time, so the first of them go
 * without: waiting for each predecessor would send them one by one), and for the first piece what
 * came before the whole audio (a live part's predecessor).
 */
function precedingText(run: PieceRun, index: number): string | undefined {
  return index === 0 ? run.input.prompt?.preceding : run.done.get(index - 1)?.text;
}

/** Cuts `chunk` out of the audio and sends it (with retries): its transcript, times relative to the chunk. */
async function transcribeCut(
  deps: Pick<ChunkedTranscriptionDeps, 'transcriber' | 'retryDelaySeconds' | 'limits'>,
  run: CutAudio,
  splitter: AudioSplitter,
  chunk: ChunkRange,
  signal: AbortSignal,
  logger: Pick<Logger, 'warn'>,
  preceding: string | undefined,
): Promise<ChunkTranscript> {
  const file = path.join(run.dir, `chunk-${chunk.index}.${run.input.format}`);
  try {
    const isLast = chunk.index === run.plan.length - 1;
    const written = await splitter.cut(chunk.start, isLast ? Number.POSITIVE_INFINITY : chunk.end, file).catch((error) => {
      throw unreadable(error);
    });
    const { size } = await stat(file);
    const limit = deps.limits!.maxBytes;
    if (limit > 0 && size > limit) {
      throw new ProviderError('TRANSCRIPTION_AUDIO_UNREADABLE', `The chunk has ${size} bytes, over the ${limit}-byte request limit`, {
        retryable: false,
      });
    }
    const input: TranscriptionInput = {
      ...run.input,
      openAudio: () => createReadStream(file),
      audioFile: file,
      sizeBytes: size,
      durationSeconds: written.durationSeconds,
      prompt: { terms: run.input.prompt?.terms ?? [], ...(preceding ? { preceding } : {}) },
    };
    const transcript = await transcribeWithRetries(deps, input, signal, logger, { ...run.where, chunk: chunk.index });
    return {
      offsetSeconds: written.offsetSeconds,
      text: transcript.text,
      language: transcript.language,
      segments: transcript.segments,
      model: transcript.model,
    };
  } finally {
    await rm(file, { force: true });
  }
}

/** One request's audio, tried up to CHUNK_TRIES times while its failures may pass (retry-budget.ts). */
export async function transcribeWithRetries(
  deps: Pick<ChunkedTranscriptionDeps, 'transcriber' | 'retryDelaySeconds'>,
  input: TranscriptionInput,
  signal: AbortSignal,
  logger: Pick<Logger, 'warn'>,
  where: Record<string, unknown>,
): Promise<Transcript> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.transcriber.transcribe(input, signal);
    } catch (error) {
      const retryable = error instanceof ProviderError ? error.retryable : true;
      if (!retryable || attempt >= CHUNK_TRIES || signal.aborted) throw error;
      const delayMs = chunkRetryDelayMs(deps.retryDelaySeconds, attempt);
      logger.warn({ ...where, attempt, code: (error as ProviderError).code }, 'chunk failed; retrying');
      await sleep(delayMs, undefined, { signal });
    }
  }
}

/** The provider's error, its message prefixed with `where` (which chunk or part of the audio failed). */
export function failedAt(error: unknown, where: string): unknown {
  if (!(error instanceof ProviderError)) return error;
  return new ProviderError(error.code, `${where}: ${error.message}`, { retryable: error.retryable, cause: error });
}

/** Audio that cannot be read or cut (or joined): retrying cannot help. `what` names it in the message. */
export function unreadable(error: unknown, what = 'the audio'): ProviderError {
  if (error instanceof ProviderError) return error;
  const message = error instanceof AudioSplitError ? error.message : `the audio could not be split: ${(error as Error).message}`;
  return new ProviderError('TRANSCRIPTION_AUDIO_UNREADABLE', `Could not read ${what}: ${message}`, { retryable: false, cause: error });
}

/** Copies stored audio (`what`: the note's audio, a live part) to `target` for cutting; storage's failure may pass. */
export async function copyStored(storage: AudioStorage, key: string, target: string, signal: AbortSignal, what = 'audio'): Promise<void> {
  try {
    await pipeline(storage.open(key), createWriteStream(target), { signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ProviderError('TRANSCRIPTION_AUDIO_UNREADABLE', `Could not read the stored ${what}: ${(error as Error).message}`, {
      retryable: true,
      cause: error,
    });
  }
}
