import type { Db } from '../../platform/db/client.ts';
import type { StoredTranscript } from '../../platform/db/schema/index.ts';
import { notesCompleted, notesFailed, outcomeOf } from '../../platform/metrics/notes.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { replaceFollowUps } from '../plan/plan.repo.ts';
import { markNoteCompleted, markNoteFailed, type WrittenContent } from '../store/notes.repo.ts';
import type { Species } from '../store/vitals.schemas.ts';
import { flagVitals, type UnflaggedVital } from '../vitals/note-vitals.ts';
import { effectiveRanges } from '../vitals/reference-ranges.ts';
import { rangeOverridesOf } from '../vitals/vitals.repo.ts';
import type { NoteEvents } from '../webhooks/note-events.ts';

/** The vitals read from a transcript, flagged when the note completes against its clinic's ranges of that moment. */
export interface FoundVitals {
  clinicId: string;
  species: Species | null;
  vitals: UnflaggedVital[];
}

/**
 * How a note's processing ends: the status change, its history event (no key: the worker's) and its `note.completed` / `note.failed` event
 * (outbox) in one transaction, so a receiver hears of exactly the outcomes that were committed.
 * Processing owns this transaction; the repo only writes rows and knows nothing of webhooks.
 */
export function noteOutcomes(deps: { db: Db; events: NoteEvents }) {
  return {
    /** Sections and vitals replaced, `completed`, event recorded; false when the note had left `processing`. */
    complete(id: string, transcript: StoredTranscript, written: WrittenContent, found?: FoundVitals) {
      return deps.db
        .transaction(async (tx) => {
          const vitals = found && {
            species: found.species,
            vitals: flagVitals(found.vitals, found.species, effectiveRanges(await rangeOverridesOf(found.clinicId, tx))),
          };
          if (!(await markNoteCompleted(id, transcript, { ...written, ...(vitals ? { vitals } : {}) }, tx))) return false;
          // The worklist's rows of the plan, with the plan (a retry's completion replaces them).
          if (written.plan && found) await replaceFollowUps(id, found.clinicId, written.plan, tx);
          await recordNoteEvent(tx, id, 'completed', null, { note_style: written.style, review_flags: written.reviewFlags.length });
          await deps.events.completed(tx, id);
          return true;
        })
        .then((completed) => {
          if (completed) notesCompleted.inc();
          return completed;
        });
    },
    /** `failed` with its failure, event recorded; false when the note had already finished. */
    fail(id: string, failure: { code: string; message: string }) {
      return deps.db
        .transaction(async (tx) => {
          if (!(await markNoteFailed(id, failure, tx))) return false;
          await recordNoteEvent(tx, id, 'failed', null, { code: failure.code });
          await deps.events.failed(tx, id);
          return true;
        })
        .then((failed) => {
          if (failed) notesFailed.inc({ code: outcomeOf(failure) });
          return failed;
        });
    },
  };
}

export type NoteOutcomes = ReturnType<typeof noteOutcomes>;
