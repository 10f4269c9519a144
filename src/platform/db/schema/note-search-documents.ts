import { index, pgTable, timestamp, uuid } from '../drizzle.ts';
import { notes } from './notes.ts';
import { tsvector } from './tsvector.ts';

/**
 * What a content search (`GET /notes?q=`) looks in: per note, the patient's name and the current
 * text of every section (after edits and amendments) as one `tsvector` in the `vetflow_portuguese`
 * configuration (accents and case folded, Portuguese stems: "vômito" and "vomitou" share `vomit`).
 * Personal data: written only by the triggers in src/notes/reads/note-search.sql, in the transaction
 * of every write of the note's name or sections, and gone with the note (erasure, ON DELETE CASCADE).
 * `clinic_id` and `created_at` are the note's, so a search walks its clinic's documents in the
 * list's order without reading `notes` (docs/notes-reads.md, "Search inside the notes").
 */
export const noteSearchDocuments = pgTable(
  'note_search_documents',
  {
    noteId: uuid('note_id')
      .primaryKey()
      .references(() => notes.id, { onDelete: 'cascade' }),
    clinicId: uuid('clinic_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    document: tsvector('document').notNull(),
  },
  (table) => [
    index('note_search_documents_document_idx').using('gin', table.document),
    index('note_search_documents_clinic_created_idx').on(
      table.clinicId,
      table.createdAt.desc().nullsLast(),
      table.noteId.desc().nullsLast(),
    ),
  ],
);
