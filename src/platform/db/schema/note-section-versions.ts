import { index, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { noteSections } from './note-sections.ts';

/** Every previous state of an edited section: who replaced it, when, and what it said. Not exposed yet. */
export const noteSectionVersions = pgTable(
  'note_section_versions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sectionId: uuid('section_id')
      .notNull()
      .references(() => noteSections.id, { onDelete: 'cascade' }),
    noteId: uuid('note_id').notNull(),
    title: text('title').notNull(),
    label: text('label').notNull(),
    content: text('content').notNull(),
    order: text('order').notNull(),
    /** The content's own update time (when this version was written). */
    versionUpdatedAt: timestamp('version_updated_at', { withTimezone: true }).notNull(),
    /** The key whose edit replaced this version. */
    replacedByKeyId: uuid('replaced_by_key_id'),
    replacedAt: timestamp('replaced_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('note_section_versions_section_idx').on(table.sectionId, table.replacedAt)],
);
