import { bigint, index, jsonb, pgTable, sql, text, timestamp, uuid } from '../drizzle.ts';
import { notes } from './notes.ts';

export const NOTE_HISTORY_EVENTS = [
  'created',
  // live capture (notes/live/): a part held, the capture closed by the client
  'part_received',
  'capture_completed',
  'completed',
  'failed',
  'section_edited',
  'retried',
  // PUT /notes/{id}/plan: the plan replaced whole by the client (notes/plan-edit/)
  'plan_replaced',
  'signed',
  'amended',
  'exported',
  'audio_fetched',
  'audio_deleted',
] as const;
export type NoteHistoryEvent = (typeof NOTE_HISTORY_EVENTS)[number];

/**
 * Who did what to a note, oldest first by `id`: every write (in the write's own transaction) and
 * every export and audio fetch. The key's name is copied at the time of the event, with no foreign
 * key, so the trail still names a key that was revoked. Events the worker writes have no key and no
 * request id. `details` never holds transcript text for reads (exported, audio_fetched).
 */
export const noteHistory = pgTable(
  'note_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    noteId: uuid('note_id')
      .notNull()
      .references(() => notes.id, { onDelete: 'cascade' }),
    event: text('event', { enum: NOTE_HISTORY_EVENTS }).notNull(),
    keyId: uuid('key_id'),
    keyName: text('key_name'),
    requestId: text('request_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    // The moment of the insert, not of the transaction's start: events of one note keep their order in time.
    at: timestamp('at', { withTimezone: true }).notNull().default(sql`clock_timestamp()`),
  },
  (table) => [index('note_history_note_idx').on(table.noteId, table.id)],
);
