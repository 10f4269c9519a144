import { integer, pgTable, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';
import { noteSections } from './note-sections.ts';
import { notes } from './notes.ts';

/**
 * The corrections of a signed note, append-only (no code path updates or deletes a row): the new
 * content of one section, the text it replaced, why and by whom, and the hash chain link —
 * `content_sha256` over the note after this amendment, `previous_sha256` the link before it.
 * `position` (1, 2, ...) orders the chain; it is taken under the note's row lock, and unique.
 */
export const noteAmendments = pgTable(
  'note_amendments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    noteId: uuid('note_id')
      .notNull()
      .references(() => notes.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    sectionId: uuid('section_id')
      .notNull()
      .references(() => noteSections.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    previousContent: text('previous_content').notNull(),
    content: text('content').notNull(),
    reason: text('reason').notNull(),
    signedByName: text('signed_by_name').notNull(),
    signedByLicense: text('signed_by_license').notNull(),
    keyId: uuid('key_id').notNull(),
    contentSha256: text('content_sha256').notNull(),
    previousSha256: text('previous_sha256').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('note_amendments_note_position_idx').on(table.noteId, table.position)],
);
