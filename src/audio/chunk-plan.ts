// Which time ranges of a long audio go to the transcription server, one request each.

export interface RequestLimits {
  /** Most audio bytes one request may carry; 0 = unlimited. */
  maxBytes: number;
  /** Most audio seconds one request may carry; 0 = unlimited. */
  maxSeconds: number;
  /** Seconds neighbouring chunks share, so a word cut at one edge is whole in the other chunk. */
  overlapSeconds: number;
  /** Chunks sent at once; long audio is cut into at least this many chunks to keep them all busy. */
  concurrency: number;
}

export interface ChunkRange {
  index: number;
  /** Seconds from the start of the whole audio. */
  start: number;
  end: number;
}

/** Below this a chunk is not worth its own request just to run in parallel. */
const MIN_PARALLEL_CHUNK_SECONDS = 120;
/** Compressed audio is not equally dense everywhere (VBR, silence): keep this much headroom. */
const BYTE_HEADROOM = 0.85;

/**
 * The chunks for an audio of `durationSeconds` and `sizeBytes`: one range covering everything when
 * it fits both limits (a short file goes in one request); otherwise equal, overlapping ranges, as
 * many as the limits require and at least `concurrency` (when each would still be 2 minutes long),
 * rounded up to a multiple of `concurrency` so the parallel requests finish together.
 */
export function planChunks(durationSeconds: number, sizeBytes: number, limits: RequestLimits): ChunkRange[] {
  const overBytes = limits.maxBytes > 0 && sizeBytes > limits.maxBytes;
  const overSeconds = limits.maxSeconds > 0 && durationSeconds > limits.maxSeconds;
  if (!overBytes && !overSeconds) return [{ index: 0, start: 0, end: durationSeconds }];

  const overlap = limits.overlapSeconds;
  const bytesPerSecond = sizeBytes / durationSeconds;
  const longestByBytes = limits.maxBytes > 0 ? (limits.maxBytes * BYTE_HEADROOM) / bytesPerSecond : Number.POSITIVE_INFINITY;
  const longestBySeconds = limits.maxSeconds > 0 ? limits.maxSeconds - 1 : Number.POSITIVE_INFINITY;
  const longest = Math.min(longestByBytes, longestBySeconds);
  if (longest <= overlap * 2) {
    throw new RangeError(`a request limit leaves chunks of ${longest.toFixed(1)} s, too short for ${overlap} s of overlap`);
  }
  // n chunks of length step + overlap cover duration = n × step + overlap.
  const needed = Math.ceil((durationSeconds - overlap) / (longest - overlap));
  const parallel = Math.min(limits.concurrency, Math.floor(durationSeconds / MIN_PARALLEL_CHUNK_SECONDS));
  let count = Math.max(needed, parallel, 2);
  if (count >= limits.concurrency) count = Math.ceil(count / limits.concurrency) * limits.concurrency;
  const step = (durationSeconds - overlap) / count;
  return Array.from({ length: count }, (_, index) => ({
    index,
    start: round(index * step),
    end: index === count - 1 ? durationSeconds : round(index * step + step + overlap),
  }));
}

/** Where the text of chunk `index` ends and that of the next begins: the middle of their overlap. */
export function cutAfter(chunks: ChunkRange[], index: number): number {
  const next = chunks[index + 1];
  return next ? (next.start + chunks[index]!.end) / 2 : Number.POSITIVE_INFINITY;
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** `1:02:05` or `12:05` for messages. */
export function clock(seconds: number): string {
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
