import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { defineJob, type JobQueue } from '../../platform/jobs.ts';
import { releaseNote, staleProcessingNotes } from '../store/notes.repo.ts';
import type { NoteEvents } from '../webhooks/note-events.ts';
import { clinicShare } from './clinic-share.ts';
import { noteOutcomes } from './note-outcome.ts';
import { INTERRUPTED_TOO_OFTEN, mayRunAgain } from './retry-budget.ts';
import type { transcribeJob } from './transcribe.job.ts';

/**
 * The safety net behind pg-boss's heartbeat and expiry: a note still `processing` long after its
 * job should have finished or been retried (its job was lost) is re-queued, or failed once it has
 * used up its runs (retry-budget.ts). Runs every minute in worker processes.
 */
export function reconcileJob(deps: {
  db: Db;
  jobs: JobQueue;
  transcribe: ReturnType<typeof transcribeJob>;
  staleAfterSeconds: number;
  events: NoteEvents;
}) {
  const outcomes = noteOutcomes(deps);
  return defineJob({
    name: 'notes.reconcile',
    payload: z.unknown(),
    cron: '* * * * *',
    queue: { retryLimit: 0 },
    async handle(_payload, { logger }) {
      const before = new Date(Date.now() - deps.staleAfterSeconds * 1000);
      for (const note of await staleProcessingNotes(before, deps.db)) {
        if (!mayRunAgain(note.attempts)) {
          await outcomes.fail(note.id, INTERRUPTED_TOO_OFTEN);
        } else {
          // Released and re-queued together: a crash in between must not leave a pending note
          // without a job (this sweep only looks at `processing` ones).
          await deps.db.transaction(async (tx) => {
            if (await releaseNote(note.id, tx))
              await deps.jobs.send(deps.transcribe, { noteId: note.id }, { tx, ...clinicShare(note.clinicId, note.captureState !== null) });
          });
        }
        logger.warn({ noteId: note.id, attempts: note.attempts }, 'stale processing note reconciled');
      }
    },
  });
}
