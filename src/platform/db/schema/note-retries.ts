import { index, pgTable, real, timestamp, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';
import { notes } from './notes.ts';

/**
 * Every accepted retry of a failed note. A retry runs transcription and drafting again, so its
 * audio counts against the clinic's monthly quota in the month of the retry (as an upload counts
 * in the month of its upload), and the rows of one note bound how often it may be retried.
 */
export const noteRetries = pgTable(
  'note_retries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    noteId: uuid('note_id')
      .notNull()
      .references(() => notes.id, { onDelete: 'cascade' }),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    audioDurationSeconds: real('audio_duration_seconds').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('note_retries_clinic_created_idx').on(table.clinicId, table.createdAt),
    index('note_retries_note_idx').on(table.noteId),
  ],
);
