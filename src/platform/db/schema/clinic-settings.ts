import { pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';

/**
 * A clinic's Notes settings, changed by its administrators (`PATCH /notes/v1/settings`). No row
 * means every setting at its default; the first change writes the row.
 */
export const clinicSettings = pgTable('clinic_settings', {
  clinicId: uuid('clinic_id')
    .primaryKey()
    .references(() => clinics.id, { onDelete: 'cascade' }),
  /** Slug of the template a note uses when its upload names none. */
  defaultTemplate: text('default_template').notNull().default('padrao'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
