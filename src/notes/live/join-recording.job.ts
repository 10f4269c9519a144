import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { AudioJoinMismatch, joinAudio } from '../../audio/join.ts';
import type { Db } from '../../platform/db/client.ts';
import { defineJob } from '../../platform/jobs.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import { findNote } from '../store/notes.repo.ts';
import { partsOf, setJoinedRecording } from './parts.repo.ts';

export const JOIN_RECORDING_QUEUE = 'notes.live.join';

/**
 * Sent when a capture closes: writes the recording (the parts joined in order, one file) to storage
 * and makes it the note's audio, as an upload's (recording.ts serves it). Parts joined by packet
 * copy only: all in one format with the same stream parameters. Parts of different formats (or
 * parameters) would need re-encoding, which this service does not do: such a note keeps its parts
 * and has no single recording.
 */
export function joinRecordingJob(deps: { db: Db; storage: AudioStorage; tempRoot: string }) {
  return defineJob({
    name: JOIN_RECORDING_QUEUE,
    payload: z.object({ noteId: z.uuid() }),
    async handle({ noteId }, { logger }) {
      const note = await findNote(noteId, deps.db);
      if (!note?.captureState || note.captureState === 'open' || note.audioKey !== '' || note.audioDeletedAt) return;
      const parts = await partsOf(noteId, deps.db);
      const format = parts[0]?.format;
      if (!format || parts.some((part) => part.format !== format)) {
        logger.info(
          { noteId, formats: [...new Set(parts.map((part) => part.format))] },
          'live recording not joined: parts differ in format',
        );
        return;
      }
      const dir = path.join(deps.tempRoot, `${noteId}-join-${process.pid}`);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      try {
        const files: string[] = [];
        for (const part of parts) {
          const file = path.join(dir, `part-${part.part}.${format}`);
          await pipeline(deps.storage.open(part.storageKey), createWriteStream(file));
          files.push(file);
        }
        const joined = path.join(dir, `recording.${format}`);
        try {
          await joinAudio(
            format,
            files.map((file) => ({ path: file, start: 0, end: Number.POSITIVE_INFINITY })),
            joined,
          );
        } catch (error) {
          if (!(error instanceof AudioJoinMismatch)) throw error;
          logger.info({ noteId, reason: error.message }, 'live recording not joined');
          return;
        }
        const hash = createHash('sha256');
        await pipeline(createReadStream(joined), hash);
        const bytes = (await stat(joined)).size;
        const key = `${note.clinicId}/${noteId}/recording.${format}`;
        await deps.storage.putFile(key, joined);
        if (!(await setJoinedRecording(noteId, { key, format, bytes, sha256: hash.digest('hex') }, deps.db))) {
          await deps.storage.delete(key).catch(() => {});
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  });
}
