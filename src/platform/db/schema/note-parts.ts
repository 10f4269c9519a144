import { bigint, doublePrecision, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from '../drizzle.ts';
import type { StoredChunkTranscript } from './note-transcript-chunks.ts';
import { notes } from './notes.ts';

/**
 * The numbered parts of a live note's recording (notes/live/), each one independently decodable
 * file in storage, recorded before its 201. Once transcribed, a part's transcript is kept here
 * (times relative to the part's own start; negative ones fall in the previous part's tail that was
 * sent with it as overlap) until the note completes.
 */
export const noteParts = pgTable(
  'note_parts',
  {
    noteId: uuid('note_id')
      .notNull()
      .references(() => notes.id, { onDelete: 'cascade' }),
    part: integer('part').notNull(),
    storageKey: text('storage_key').notNull(),
    format: text('format', { enum: ['mp3', 'wav', 'm4a', 'aac'] }).notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    seconds: doublePrecision('seconds').notNull(),
    sha256: text('sha256').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    transcript: jsonb('transcript').$type<StoredChunkTranscript | null>(),
    /** Seconds of the previous part's end sent before this part in its request (0: none). */
    overlapSeconds: doublePrecision('overlap_seconds'),
    /**
     * While one worker has the part at the speech-to-text server: until when its lease holds
     * (renewed while the request runs). The note's job waits for a leased part instead of sending
     * it a second time; a lease left by a dead worker simply runs out.
     */
    transcribingUntil: timestamp('transcribing_until', { withTimezone: true }),
  },
  (table) => [primaryKey({ columns: [table.noteId, table.part] })],
);
