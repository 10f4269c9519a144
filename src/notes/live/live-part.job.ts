import { z } from 'zod';
import type { FairShares } from '../../platform/fair-shares.ts';
import { defineJob } from '../../platform/jobs.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import { livePartQueuePolicy } from '../processing/retry-budget.ts';
import { findNote } from '../store/notes.repo.ts';
import { type PartTranscriptionDeps, transcribePartOnce } from './part-transcription.ts';
import { findPart } from './parts.repo.ts';

export const LIVE_PART_QUEUE = 'notes.live.part';

/**
 * Sent in the transaction that records a part: transcribes it now, while the visit goes on, so
 * that `complete` finds only the last stretch left. Part n is sent with the end of part n-1, so it
 * waits for part n-1 (whose arrival sends part n's job again when part n is already held). A part
 * that fails here for good is left to the note's own transcription at `complete`, which sends any
 * part still without a transcript and fails the note, naming the part, if it cannot.
 */
export function livePartJob(deps: PartTranscriptionDeps & { heartbeatSeconds: number; concurrency: number; shares: FairShares | null }) {
  return defineJob({
    name: LIVE_PART_QUEUE,
    payload: z.object({ noteId: z.uuid(), part: z.number().int().min(1) }),
    // How often a failing part is sent: retry-budget.ts.
    queue: livePartQueuePolicy(deps.retryDelaySeconds, deps.heartbeatSeconds),
    // Independent fetchers rather than one batch: a batch is fetched again only once all its jobs
    // end, so a part arriving while an earlier one is at the server would wait for that one.
    work: { localConcurrency: deps.concurrency },
    // A clinic's parts take their turn among other clinics' and count against its cap (PROCESSING_ORDER=fair).
    ...(deps.shares ? { shares: deps.shares } : {}),
    async handle({ noteId, part: number }, { signal, logger }) {
      // A provider that hears no audio (the sandbox) transcribes the whole note at completion.
      if (!deps.limits) return;
      const note = await findNote(noteId, deps.db);
      if (!note || note.transcriptionStatus === 'completed') return;
      const part = await findPart(noteId, number, deps.db);
      if (!part || part.transcript) return;
      const previous = number > 1 ? await findPart(noteId, number - 1, deps.db) : undefined;
      // Waits for part n-1: its arrival sends this part's job again (live.service.ts).
      if (number > 1 && !previous) return;
      try {
        // Null: another worker has it (the note's own job, once completed) or it is done.
        await transcribePartOnce(deps, note, part, previous, signal, logger);
      } catch (error) {
        if (!(error instanceof ProviderError) || error.retryable) throw error;
        logger.warn({ noteId, part: number, code: error.code }, 'part not transcribed; left to completion');
      }
    },
  });
}
