import { index, pgTable, primaryKey, sql, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';
import type { TranscriptionStatus } from './notes.ts';

/**
 * Each word of each note's folded name (`notes.name_folded` split on spaces, each word once a note),
 * with the note's place in the list (created_at, id), the whole folded name and the status: a name search walks
 * the notes holding one word newest first, in this index alone, and checks the whole name on each
 * entry (docs/notes-reads.md, "How a name search finds its page"). Personal data (the patient's
 * name): written and deleted only by the triggers in src/notes/reads/name-words.sql, in the
 * transaction of the note's insert, change (of name or status) or deletion (erasure).
 */
export const noteNameWords = pgTable(
  'note_name_words',
  {
    clinicId: uuid('clinic_id').notNull(),
    word: text('word').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    noteId: uuid('note_id').notNull(),
    nameFolded: text('name_folded').notNull(),
    /** The note's, kept with it: a search with a status checks it on the entry, not on the note. */
    transcriptionStatus: text('transcription_status').$type<TranscriptionStatus>().notNull(),
  },
  (table) => [
    // Scanned backwards: one word's notes newest first (created_at desc, id desc), the name and status alongside.
    uniqueIndex('note_name_words_walk_idx').on(
      table.clinicId,
      table.word,
      table.createdAt,
      table.noteId,
      table.nameFolded,
      table.transcriptionStatus,
    ),
  ],
);

/**
 * The distinct words of a clinic's note names (note_name_words.word): what each word of a search
 * can be part of. A word leaves with the last note holding it (the same triggers).
 */
export const noteNameDictionary = pgTable(
  'note_name_dictionary',
  {
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    word: text('word').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.clinicId, table.word] }),
    // A clinic with tens of thousands of distinct words: which contain a search's word, by trigram.
    index('note_name_dictionary_word_trgm_idx').using('gin', sql`word gin_trgm_ops`),
  ],
);
