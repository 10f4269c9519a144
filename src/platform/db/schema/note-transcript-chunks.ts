import { doublePrecision, integer, jsonb, pgTable, primaryKey, timestamp, uuid } from '../drizzle.ts';
import { notes } from './notes.ts';

/**
 * The planned chunks of a long note's audio and, once received, each chunk's transcript: a retry
 * of the note or a crashed worker's successor sends only the chunks still without one. Rows go
 * when the note completes (or is deleted).
 */
export const noteTranscriptChunks = pgTable(
  'note_transcript_chunks',
  {
    noteId: uuid('note_id')
      .notNull()
      .references(() => notes.id, { onDelete: 'cascade' }),
    chunkIndex: integer('chunk_index').notNull(),
    /** The planned range in seconds from the start of the whole audio (overlap included). */
    startSeconds: doublePrecision('start_seconds').notNull(),
    endSeconds: doublePrecision('end_seconds').notNull(),
    transcript: jsonb('transcript').$type<StoredChunkTranscript | null>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (table) => [primaryKey({ columns: [table.noteId, table.chunkIndex] })],
);

export interface StoredChunkTranscript {
  /** Where the chunk's audio really starts (its first packet), in seconds. */
  offsetSeconds: number;
  text: string;
  language: string | null;
  segments: { start: number; end: number; text: string; speaker?: string }[];
  model?: string | null;
}
