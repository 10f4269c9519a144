import { date, index, integer, pgTable, primaryKey, text, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';
import { notes } from './notes.ts';

/**
 * The follow-ups of every note's plan that have a due date, one row each, so the worklist
 * (`GET /notes/v1/follow_ups`) reads one index range of a clinic's days instead of every plan.
 * Written in the transaction that writes the note's plan (notes/plan/plan.repo.ts), never on its
 * own; goes with its note (an erasure deletes the note: `on delete cascade`).
 */
export const noteFollowUps = pgTable(
  'note_follow_ups',
  {
    /** The follow-up's own `id` in the plan (unique within its note). */
    itemId: uuid('item_id').notNull(),
    noteId: uuid('note_id')
      .notNull()
      .references(() => notes.id, { onDelete: 'cascade' }),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    dueDate: date('due_date', { mode: 'string' }).notNull(),
    /** Its place in the plan's list: the worklist's order among a note's follow-ups due the same day. */
    position: integer('position').notNull(),
    kind: text('kind').notNull(),
    /** The words said (or written by the vet): personal data, erased with the note. */
    text: text('text').notNull(),
  },
  (table) => [
    index('note_follow_ups_clinic_due_idx').on(table.clinicId, table.dueDate, table.noteId, table.position),
    primaryKey({ name: 'note_follow_ups_pkey', columns: [table.noteId, table.position] }),
  ],
);
