import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import { type NotesTempDirs, removeNoteTempFiles } from '../processing/temp-dir.ts';

/** Files of deleted notes: their recordings in storage and their temporary files (live parts, transcription). */
export const PurgePayload = z.object({
  keys: z.array(z.string()),
  note_ids: z.array(z.uuid()),
});
export type Purge = z.infer<typeof PurgePayload>;

export interface PurgeDeps {
  storage: AudioStorage;
  /** Where requests and jobs keep a note's audio for a while (`DATA_DIR/tmp/…`). */
  tempDirs: NotesTempDirs;
}

/** How many storage deletions run at once (S3 answers one object per request). */
const PURGE_CONCURRENCY = 8;

/**
 * Deletes every file of the notes: absent ones are fine, so a second purge does nothing. Throws
 * after trying them all when any could not be deleted (naming how many), so the job is retried.
 */
export async function purgeFiles(deps: PurgeDeps, purge: Purge): Promise<void> {
  const work = [
    ...purge.keys.map((key) => () => deps.storage.delete(key)),
    ...purge.note_ids.map((id) => () => removeNoteTempFiles(deps.tempDirs, id)),
  ];
  let failed = 0;
  let firstError: unknown;
  const worker = async () => {
    for (let next = work.shift(); next; next = work.shift()) {
      try {
        await next();
      } catch (error) {
        failed += 1;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: PURGE_CONCURRENCY }, worker));
  if (failed > 0) {
    throw new Error(`${failed} file(s) of deleted notes could not be deleted: ${(firstError as Error)?.message ?? firstError}`, {
      cause: firstError,
    });
  }
}

/**
 * The guarantee behind a note's erasure: sent in the erasing transaction, so the files of a note
 * whose rows are gone are deleted even when the deletion right after the commit fails (storage
 * unreachable) or the process dies before it. Retried for about an hour and a half; after that it
 * lands in `notes.purge-files.dead` for the operator (docs/privacy.md).
 */
export function purgeFilesJob(deps: PurgeDeps) {
  return defineJob({
    name: 'notes.purge-files',
    payload: PurgePayload,
    queue: { retryLimit: 12, retryDelay: 5, retryBackoff: true, retryDelayMax: 900, expireInSeconds: 900 },
    handle: (purge) => purgeFiles(deps, purge),
  });
}

export type PurgeFilesJob = ReturnType<typeof purgeFilesJob>;
