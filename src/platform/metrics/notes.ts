import { counter, FAST_BUCKETS, histogram, SLOW_BUCKETS } from './registry.ts';

// Note processing: the funnel (created → completed | failed by code) and where the time goes.

export const notesCreated = counter('vetflow_notes_created_total', 'Notes created by an upload (replays not counted).');
export const notesCompleted = counter('vetflow_notes_completed_total', 'Notes that reached completed.');
export const notesFailed = counter('vetflow_notes_failed_total', 'Notes that reached failed, by failure code.', ['code']);

export const uploadToCompleted = histogram(
  'vetflow_note_upload_to_completed_seconds',
  'From the upload that created a note to the note completed.',
  SLOW_BUCKETS,
);
export const transcriptionDuration = histogram(
  'vetflow_note_transcription_duration_seconds',
  "A note's transcription (every chunk and retry within one attempt), by provider and outcome.",
  [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1200],
  ['provider', 'outcome'],
);
export const sectioningDuration = histogram(
  'vetflow_note_sectioning_duration_seconds',
  "Writing a note's sections from its transcript (drafting included for clinical notes), by style.",
  FAST_BUCKETS,
  ['style'],
);
export const transcriptionChunks = histogram(
  'vetflow_note_transcription_chunks',
  'Requests one transcription of a note was cut into (1 when the audio fits in one request).',
  [1, 2, 3, 4, 6, 8, 12, 16, 24, 32],
);

/** Calls to a remote or local provider: kind transcription|sectioning|drafting, outcome ok or the error code. */
export const providerRequests = counter('vetflow_provider_requests_total', 'Provider requests, by kind, provider and outcome.', [
  'kind',
  'provider',
  'outcome',
]);
export const providerDuration = histogram(
  'vetflow_provider_request_duration_seconds',
  'Provider requests, by kind and provider.',
  [...FAST_BUCKETS, 120, 300, 600],
  ['kind', 'provider'],
);

// An error's code becomes a label only when it looks like one of ours (UPPER_SNAKE, bounded length).
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** The outcome label of a failure: its error code, or `error` for anything without a sane one. */
export function outcomeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CODE.test(code) ? code : 'error';
}

/** Counts and times one provider call. */
export async function measureProvider<T>(kind: string, provider: string, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    providerRequests.inc({ kind, provider, outcome: 'ok' });
    return result;
  } catch (error) {
    providerRequests.inc({ kind, provider, outcome: outcomeOf(error) });
    throw error;
  } finally {
    providerDuration.observe({ kind, provider }, (performance.now() - started) / 1000);
  }
}
