import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { defineJob, type JobDefinition, type JobQueue } from '../../platform/jobs.ts';
import { notesFailed, outcomeOf } from '../../platform/metrics/notes.ts';
import { clinicShare } from '../processing/clinic-share.ts';
import { findNote, markNoteFailed } from '../store/notes.repo.ts';
import type { NoteEvents } from '../webhooks/note-events.ts';
import { closeCapture, lockNote } from './parts.repo.ts';

export const CAPTURE_IDLE_QUEUE = 'notes.live.idle';
export const CAPTURE_ABANDONED = {
  code: 'CAPTURE_ABANDONED',
  message: 'The live capture received no audio before it was closed for idleness',
};

/**
 * Never stuck open: sent when a live note is created, due after `idleSeconds`. If a part arrived
 * meanwhile it sends itself again, due `idleSeconds` after that part; otherwise it closes the
 * capture (`auto_closed`) and queues the note's transcription with the parts it has (the note gets
 * a `capture_auto_closed` review flag), or, without any part, fails the note `CAPTURE_ABANDONED`
 * (with its note.failed event) — in one transaction under the note's row lock.
 */
export function captureIdleJob(deps: {
  db: Db;
  jobs: JobQueue;
  events: NoteEvents;
  idleSeconds: number;
  transcribe: JobDefinition<{ noteId: string }>;
  joinJob: JobDefinition<{ noteId: string }>;
}) {
  const job = defineJob({
    name: CAPTURE_IDLE_QUEUE,
    payload: z.object({ noteId: z.uuid() }),
    async handle({ noteId }, { logger }) {
      const note = await findNote(noteId, deps.db);
      if (note?.captureState !== 'open' || !note.captureTouchedAt) return;
      const idleMs = Date.now() - note.captureTouchedAt.getTime();
      if (idleMs < deps.idleSeconds * 1000) {
        await deps.jobs.send(job, { noteId }, { startAfter: Math.max(1, Math.ceil(deps.idleSeconds - idleMs / 1000)) });
        return;
      }
      const outcome = await deps.db.transaction(async (tx) => {
        const locked = await lockNote(noteId, tx);
        if (locked?.captureState !== 'open' || !locked.captureTouchedAt) return null;
        if (Date.now() - locked.captureTouchedAt.getTime() < deps.idleSeconds * 1000) return 'touched';
        await closeCapture(noteId, 'auto_closed', tx);
        if (locked.captureParts === 0) {
          if (await markNoteFailed(noteId, CAPTURE_ABANDONED, tx)) await deps.events.failed(tx, noteId);
          return 'abandoned';
        }
        await deps.jobs.send(deps.transcribe, { noteId }, { tx, ...clinicShare(locked.clinicId, true) });
        await deps.jobs.send(deps.joinJob, { noteId }, { tx });
        return 'closed';
      });
      if (outcome === 'touched') await deps.jobs.send(job, { noteId }, { startAfter: deps.idleSeconds });
      if (outcome === 'abandoned') notesFailed.inc({ code: outcomeOf(CAPTURE_ABANDONED) });
      if (outcome === 'abandoned' || outcome === 'closed') logger.info({ noteId, outcome }, 'idle live capture closed');
    },
  });
  return job;
}
