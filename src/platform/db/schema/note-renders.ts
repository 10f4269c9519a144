import { pgTable, text, uuid } from '../drizzle.ts';
import { notes } from './notes.ts';

/**
 * Each note as GET /notes/{id} shows it (the `data` of the answer, as JSON text), so the read is one
 * primary-key lookup with nothing assembled. Written only by the triggers in
 * src/notes/store/note-render.sql, in the transaction of every change to what the note shows; the
 * transcript URL is stored as a path, the public base URL is put in front of it when it is served
 * (docs/notes-reads.md). `clinic_id` is the tenancy check of the read.
 */
export const noteRenders = pgTable('note_renders', {
  noteId: uuid('note_id')
    .primaryKey()
    .references(() => notes.id, { onDelete: 'cascade' }),
  clinicId: uuid('clinic_id').notNull(),
  body: text('body').notNull(),
});
