import type { Db } from '../../platform/db/client.ts';
import { RETENTION_BATCH, type RetentionTask } from '../../platform/retention.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import { insertWorkerEvents } from '../history/history.repo.ts';
import { partKeysWithNotes } from '../live/parts.repo.ts';
import {
  clinicsWithAudioRetention,
  type ExpiredRecording,
  expiredRecordings,
  markAudioDeleted,
  type RecordingCursor,
} from './audio-retention.repo.ts';

/** Storage deletions at once (S3 answers one object per request). */
const DELETE_CONCURRENCY = 8;

/**
 * The clinics' audio retention (`audio_retention_days` in /settings): the recording of a completed
 * note goes that many days after it completed (0: at the first run after completion); the note, its
 * transcript, sections and exports stay, its audio route answers 410 AUDIO_EXPIRED and its history
 * gains `audio_deleted`. Failed notes keep theirs (a retry needs it).
 *
 * Per batch of RETENTION_BATCH notes: the files first, then short transactions (MARK_BATCH notes
 * each) mark the notes whose file is gone. A crash in between leaves a note marked later (its file already gone); a file
 * storage refuses leaves its note unmarked, met again by the next run, and fails this run (after the
 * rest is done) so the operator hears of it. Idempotent: a second run finds nothing.
 */
/**
 * Notes marked per transaction. Marking a note renders it again and refreshes its name words and
 * search document in the same statement (triggers): ~0.5 ms a note on an idle machine, several
 * times that on a loaded one, so 1,000 at once came near the 5 s statement timeout under load.
 */
const MARK_BATCH = 250;

export function audioRetentionTask(db: Db, storage: AudioStorage): RetentionTask {
  return {
    name: 'audio_deleted',
    async run(now) {
      let deleted = 0;
      let refused = 0;
      let firstError: unknown;
      for (const { clinicId, days } of await clinicsWithAudioRetention(db)) {
        const cutoff = new Date(now.getTime() - days * 86_400_000);
        let cursor: RecordingCursor | null = null;
        for (;;) {
          const batch = await expiredRecordings(clinicId, cutoff, cursor, RETENTION_BATCH, db);
          if (batch.length === 0) break;
          const { gone, errors } = await deleteFiles(storage, batch, await partKeysByNote(batch, db));
          refused += errors.length;
          firstError ??= errors[0];
          for (let from = 0; from < gone.length; from += MARK_BATCH) {
            const slice = gone.slice(from, from + MARK_BATCH);
            deleted += (
              await db.transaction(async (tx) => {
                const marked = await markAudioDeleted(slice, tx);
                await insertWorkerEvents(marked, 'audio_deleted', { retention_days: days }, tx);
                return marked;
              })
            ).length;
          }
          if (batch.length < RETENTION_BATCH) break;
          const last = batch.at(-1)!;
          cursor = { completedAt: last.completedAt, id: last.id };
        }
      }
      if (refused > 0) {
        throw new Error(`${refused} expired recording(s) could not be deleted (the next run tries again); ${deleted} were`, {
          cause: firstError,
        });
      }
      return deleted;
    },
  };
}

/** A live note's recording is also in its parts' files (notes/live/): they go with the joined file, if any. */
async function partKeysByNote(batch: readonly ExpiredRecording[], db: Db): Promise<Map<string, string[]>> {
  const byNote = new Map<string, string[]>();
  for (const { noteId, storageKey } of await partKeysWithNotes(
    batch.map((recording) => recording.id),
    db,
  )) {
    byNote.set(noteId, [...(byNote.get(noteId) ?? []), storageKey]);
  }
  return byNote;
}

/** Deletes the batch's files, a few at once; returns the notes whose files are gone and what failed. */
async function deleteFiles(storage: AudioStorage, batch: readonly ExpiredRecording[], parts: Map<string, string[]>) {
  const queue = [...batch];
  const gone: string[] = [];
  const errors: unknown[] = [];
  const worker = async () => {
    for (let recording = queue.shift(); recording; recording = queue.shift()) {
      try {
        // A live note whose parts were never joined has no file of its own (an empty key): its parts are its recording.
        for (const key of [recording.audioKey, ...(parts.get(recording.id) ?? [])].filter(Boolean)) await storage.delete(key);
        gone.push(recording.id);
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: DELETE_CONCURRENCY }, worker));
  return { gone, errors };
}
