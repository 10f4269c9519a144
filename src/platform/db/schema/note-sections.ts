import { index, integer, jsonb, pgTable, sql, text, timestamp, uuid } from '../drizzle.ts';
import { notes } from './notes.ts';

/** One section of a note; `order` is the numeric string of the API, `position` its sortable value. */
export const noteSections = pgTable(
  'note_sections',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    noteId: uuid('note_id')
      .notNull()
      .references(() => notes.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    title: text('title').notNull(),
    content: text('content').notNull(),
    /** Transcript time ranges (seconds) behind the section: the segments its sentences cite. */
    evidence: jsonb('evidence').$type<{ start: number; end: number }[]>().notNull().default(sql`'[]'::jsonb`),
    order: text('order').notNull(),
    position: integer('position').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('note_sections_note_idx').on(table.noteId, table.position)],
);
