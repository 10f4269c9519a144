import { index, integer, pgTable, real, text, timestamp, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';

/**
 * The erasure log (notes/erasure/): one row per deleted note (`note`) or erased patient (`patient`),
 * the proof a clinic's DPO shows that a titular's request was answered. It holds no patient data:
 * the note id (of a note that no longer exists), a keyed digest of the external id (never the id
 * itself, nor a plain hash anyone could compute from a guessed id), the key and the reason the
 * administrator gave. Kept 5 years (notes.retention.ts), no foreign key to the key, which may be
 * revoked meanwhile.
 */
export const noteErasures = pgTable(
  'note_erasures',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['note', 'patient'] }).notNull(),
    /** The deleted note (kind `note`); null for a patient's erasure. */
    noteId: uuid('note_id'),
    /**
     * Rows written before the log was keyed: the hex SHA-256 of the external id. Each is replaced
     * by its `external_id_hmac` (and set to null) when a process first loads the log's key
     * (notes/erasure/erasure-log-key.ts); new rows never set it.
     */
    externalIdSha256: text('external_id_sha256'),
    /**
     * Hex HMAC-SHA-256, under the erasure log key (ERASURE_LOG_KEY), of the hex SHA-256 of the
     * external id's UTF-8 bytes (of the patient, or of the deleted note when it had one).
     */
    externalIdHmac: text('external_id_hmac'),
    notesDeleted: integer('notes_deleted').notNull(),
    keyId: uuid('key_id').notNull(),
    reason: text('reason'),
    /**
     * Seconds of audio the deleted notes had charged to the clinic's quota in the month of the
     * erasure (their uploads and retries of that month): still counted until the month ends, so a
     * deletion never gives processing back. Not shown by the API.
     */
    quotaSeconds: real('quota_seconds').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('note_erasures_clinic_created_idx').on(table.clinicId, table.createdAt.desc(), table.id.desc()),
    // "Did we erase X?": GET /erasures?external_id=X looks its digests up.
    index('note_erasures_clinic_hmac_idx').on(table.clinicId, table.externalIdHmac),
    // The retention run walks the log by age across clinics.
    index('note_erasures_created_idx').on(table.createdAt),
  ],
);
