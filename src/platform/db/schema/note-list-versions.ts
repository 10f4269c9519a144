import { bigint, pgTable, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';

/**
 * Per clinic, a number that changes (in the same transaction) with every insert, update, delete or
 * truncate of its notes: the list's cached counts are valid while it stays the same. Written only by
 * the triggers in src/notes/store/note-list-version.sql; no row means no note of the clinic has
 * changed since that trigger was deployed (version 0).
 */
export const noteListVersions = pgTable('note_list_versions', {
  clinicId: uuid('clinic_id')
    .primaryKey()
    .references(() => clinics.id, { onDelete: 'cascade' }),
  version: bigint('version', { mode: 'number' }).notNull(),
});
