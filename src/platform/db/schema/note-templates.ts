import { jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';
import type { StoredTemplate } from './notes.ts';

/**
 * A clinic's own note template (notes/templates): an ordered list of sections, each gathering some
 * of the base labels. The built-ins (`padrao`, `soap`) live in code, the same on every server.
 */
export const noteTemplates = pgTable(
  'note_templates',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    sections: jsonb('sections').$type<StoredTemplate['sections']>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('note_templates_clinic_slug_key').on(table.clinicId, table.slug)],
);
