import type { JobDefinition } from '../../platform/jobs.ts';

// How often a failing note is tried, and for how long: the whole answer, in one place.
//
// A note is processed in *runs*. A run is one worker claiming the note (`notes.attempts` counts the
// claims; the column survives every job that ever carried the note: pg-boss's own retries, a
// re-send by the reconcile sweep, a retry by the clinic, which starts the count again).
//
// - At most NOTE_MAX_RUNS runs, whatever ended the earlier ones: a provider error that may pass
//   (timeouts, 429, 5xx, a connection refused) or a worker that died mid-run. The run that finds the
//   budget spent fails the note: with the provider's error when the provider failed it, with
//   PROCESSING_FAILED ("interrupted too many times") when the workers did.
// - Between runs after a provider error, pg-boss waits TRANSCRIPTION_RETRY_DELAY_SECONDS (d) times
//   1-2, then 2-4, then 4-8, then 8-16 (random within each band), never more than
//   RUN_RETRY_DELAY_MAX_SECONDS: with the default d = 10 s a note that never succeeds fails after
//   about 2.5-5 minutes of waiting. A run whose worker died is picked up again after the job's
//   heartbeat (TRANSCRIPTION_HEARTBEAT_SECONDS) or expiry, or by the reconcile sweep once the note
//   has been `processing` for 2 × TRANSCRIPTION_TIMEOUT_SECONDS + 60 s: the same run count applies.
// - Inside a run, audio short enough for one request is sent once. Long audio is sent in chunks;
//   each chunk is sent at most CHUNK_TRIES times, d and then 2d apart (never more than
//   CHUNK_RETRY_DELAY_MAX_MS); chunks already transcribed are kept, so a later run sends only the
//   rest.
// - A database outage is not the note's failure and spends no run: the job waits for the database
//   and runs its handler again (at most 10 times: platform/jobs.ts).
// - A live note's part is sent when it arrives, by its own job (notes/live/live-part.job.ts): at
//   most LIVE_PART_MAX_RUNS runs of that job, pg-boss waiting d times 1-2, then 2-4, then 4-8
//   between them; in each run the part's request (or each piece of a part cut into pieces) is tried
//   at most CHUNK_TRIES times, as a chunk is. A part still without a transcript is then left to the
//   note's own runs at `complete`, which send it as they send a chunk.
//
// So a note is sent to the transcription server at most NOTE_MAX_RUNS times (short audio), or at
// most NOTE_MAX_RUNS × CHUNK_TRIES times per chunk (long audio); a live part's own job sends it at
// most LIVE_PART_MAX_RUNS × CHUNK_TRIES = 12 times (per piece), and the note's runs at most
// NOTE_MAX_RUNS × CHUNK_TRIES more: (LIVE_PART_MAX_RUNS + NOTE_MAX_RUNS) × CHUNK_TRIES = 27 in all,
// per retry by the clinic. test/notes/retry-budget.test.ts counts them.

/** Runs of one note before it fails. */
export const NOTE_MAX_RUNS = 5;
/** Requests per chunk of long audio within one run. */
export const CHUNK_TRIES = 3;
/** Runs of a live part's own job (live-part.job.ts) before the part is left to the note's runs. */
export const LIVE_PART_MAX_RUNS = 4;
/** The longest wait between two runs (pg-boss's backoff is capped there). */
export const RUN_RETRY_DELAY_MAX_SECONDS = 300;
/** The longest wait between two tries of one chunk. */
export const CHUNK_RETRY_DELAY_MAX_MS = 60_000;

/** The failure of a note whose runs were all interrupted (workers died, jobs were lost). */
export const INTERRUPTED_TOO_OFTEN = { code: 'PROCESSING_FAILED', message: 'Processing was interrupted too many times' } as const;

/**
 * The transcription queue's retry policy: pg-boss retries a run that failed with an error that may
 * pass, with exponential backoff, as often as the run budget allows (the note's run count, not the
 * job's retry count, decides: a re-sent job starts its own count at 0).
 */
export function transcribeQueuePolicy(retryDelaySeconds: number): NonNullable<JobDefinition['queue']> {
  return {
    retryLimit: NOTE_MAX_RUNS - 1,
    retryDelay: retryDelaySeconds,
    retryBackoff: true,
    retryDelayMax: RUN_RETRY_DELAY_MAX_SECONDS,
  };
}

/**
 * The live part queue's retry policy: a run that failed with an error that may pass is run again,
 * with exponential backoff from `retryDelaySeconds`, until LIVE_PART_MAX_RUNS runs in all; each run
 * tries the part's requests CHUNK_TRIES times. The heartbeat is the part's (its lease is renewed
 * on the same period).
 */
export function livePartQueuePolicy(retryDelaySeconds: number, heartbeatSeconds: number): NonNullable<JobDefinition['queue']> {
  return { retryLimit: LIVE_PART_MAX_RUNS - 1, retryDelay: retryDelaySeconds, retryBackoff: true, heartbeatSeconds };
}

/** The note's runs so far (its claims, this one included) exceed the budget: fail it without trying. */
export function runsSpent(claims: number): boolean {
  return claims > NOTE_MAX_RUNS;
}

/**
 * The run that just failed with an error that may pass was the note's last: fail the note now. Also
 * when the job itself has no retry left (a job re-sent after a crash counts from 0, so this is only
 * a guard: a note is never left pending without a job).
 */
export function lastRun(claims: number, job: { retryCount: number; retryLimit: number }): boolean {
  return claims >= NOTE_MAX_RUNS || job.retryCount >= job.retryLimit;
}

/** The reconcile sweep found the note stuck in `processing` after this many claims: fail it, or re-queue it. */
export function mayRunAgain(claims: number): boolean {
  return claims < NOTE_MAX_RUNS;
}

/** The wait before try `tries + 1` of one chunk, after `tries` failed ones. */
export function chunkRetryDelayMs(retryDelaySeconds: number, tries: number): number {
  return Math.min(CHUNK_RETRY_DELAY_MAX_MS, retryDelaySeconds * 1000 * 2 ** (tries - 1));
}
