// How one live part goes to the speech-to-text server (docs/notes-live.md, "When a part's audio is
// sent"). The part, with the overlap before it, is one request when it is at most
// LIVE_PART_REQUEST_SECONDS long. A longer one is cut as long audio is (plan.ts, split.ts: packet
// copies, no re-encoding) into overlapping pieces sent at the same time, and their transcripts are
// stitched back into the part's (stitch.ts). The point is the end of the visit: the last part is
// sent when it arrives, just before `complete`, and the note waits for its answer; on a server whose
// time grows with the audio, pieces of 20 s answer in about half the time of one 34 s request.
// The cost is the overlap heard twice inside a part (one more TRANSCRIPTION_CHUNK_OVERLAP_SECONDS
// per piece) and one more request's fixed cost per piece.

import type { ChunkRange, RequestLimits } from '../../audio/chunk-plan.ts';
import type { Logger } from '../../platform/logger.ts';
import type { TranscriptionInput } from '../../providers/transcription/port.ts';
import {
  type ChunkedTranscriptionDeps,
  type HeardAudio,
  planWithinLimits,
  transcribePieces,
  transcribeWithRetries,
} from '../processing/chunked-transcription.ts';

export type PartRequestDeps = Pick<ChunkedTranscriptionDeps, 'transcriber' | 'retryDelaySeconds'> & {
  limits: RequestLimits;
  /** LIVE_PART_REQUEST_SECONDS: the longest piece of a part; 0 = each part in one request. */
  pieceSeconds: number;
};

/**
 * The requests for `durationSeconds` of part audio: pieces of at most `pieceSeconds` (never more
 * pieces than are sent at once, so a long part is one wave of requests), within the server's limits.
 */
export function partPieces(
  durationSeconds: number,
  sizeBytes: number,
  deps: Pick<PartRequestDeps, 'limits' | 'pieceSeconds'>,
): ChunkRange[] {
  const { limits, pieceSeconds } = deps;
  const oneWave = (durationSeconds - limits.overlapSeconds) / limits.concurrency + limits.overlapSeconds + 1;
  const piece = pieceSeconds > 0 ? Math.max(pieceSeconds, oneWave) : 0;
  const maxSeconds = [piece, limits.maxSeconds].filter((seconds) => seconds > 0);
  return planWithinLimits(durationSeconds, sizeBytes, { ...limits, maxSeconds: maxSeconds.length > 0 ? Math.min(...maxSeconds) : 0 });
}

/**
 * Sends the part's audio (`input.audioFile`) as `partPieces` says, pieces cut into `dir` by long
 * audio's core (processing/chunked-transcription.ts, transcribePieces), and returns one transcript
 * of it. A piece that fails for good fails the part.
 */
export async function transcribePartAudio(
  deps: PartRequestDeps,
  input: TranscriptionInput & { audioFile: string },
  dir: string,
  signal: AbortSignal,
  logger: Pick<Logger, 'warn'>,
  where: Record<string, unknown>,
): Promise<HeardAudio> {
  const plan = partPieces(input.durationSeconds, input.sizeBytes, deps);
  if (plan.length === 1) {
    const { text, language, segments, model } = await transcribeWithRetries(deps, input, signal, logger, where);
    return { text, language, segments, model };
  }
  return transcribePieces(deps, { input, plan, dir, done: new Map(), where }, signal, logger);
}
