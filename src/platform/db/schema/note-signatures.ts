import { boolean, integer, jsonb, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { notes } from './notes.ts';

/**
 * The one signature of a note: who signed (the veterinarian named in the request, through the key
 * `key_id`), when (whole seconds, the value the hash covers) and the SHA-256 of the clinical content
 * it signed (notes/chain/: version 1 over the sections, version 2 over the whole covered state).
 * Written once, never updated.
 */
export const noteSignatures = pgTable('note_signatures', {
  noteId: uuid('note_id')
    .primaryKey()
    .references(() => notes.id, { onDelete: 'cascade' }),
  signedByName: text('signed_by_name').notNull(),
  signedByLicense: text('signed_by_license').notNull(),
  signedAt: timestamp('signed_at', { withTimezone: true }).notNull(),
  /** Kept as written, no foreign key: the record must still name a key after it is gone. */
  keyId: uuid('key_id').notNull(),
  /** True only when review flags were open and the signer acknowledged them. */
  flagsAcknowledged: boolean('flags_acknowledged').notNull(),
  /** How many review flags were open when the note was signed. */
  openFlags: integer('open_flags').notNull(),
  contentSha256: text('content_sha256').notNull(),
  /** 1: signed before the chain covered the whole record (sections only); 2: notes/chain/hash-v2.ts. */
  hashVersion: integer('hash_version').$type<1 | 2>().notNull().default(1),
  /**
   * Version 2: the state the hash covers (patient, sections, vitals, plan: notes/chain/covered-state.ts),
   * kept so the link can be recomputed after amendments change the note. Null on version 1.
   */
  coveredState: jsonb('covered_state').$type<Record<string, unknown> | null>(),
});
