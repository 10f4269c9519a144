import { integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';
import { noteSections } from './note-sections.ts';
import { notes } from './notes.ts';

/**
 * The corrections of a signed note, append-only (no code path updates or deletes a row): the new
 * content of one section, the text it replaced, why and by whom, and the hash chain link —
 * `content_sha256` over the note after this amendment (version 2: and over its reason, signer, time
 * and `previous_sha256`), `previous_sha256` the link before it.
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
    /** Whole seconds on version 2 links: the value the hash covers. */
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** 1: the sections and the original signature only; 2: the state, reason, signer, time and previous hash (notes/chain/). */
    hashVersion: integer('hash_version').$type<1 | 2>().notNull().default(1),
    /** Version 2: the state after this amendment that the hash covers (notes/chain/covered-state.ts); null on version 1. */
    coveredState: jsonb('covered_state').$type<Record<string, unknown> | null>(),
  },
  (table) => [uniqueIndex('note_amendments_note_position_idx').on(table.noteId, table.position)],
);
