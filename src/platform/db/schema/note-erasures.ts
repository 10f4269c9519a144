import { index, integer, pgTable, real, text, timestamp, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';

/**
 * The erasure log (notes/erasure/): one row per deleted note (`note`) or erased patient (`patient`),
 * the proof a clinic's DPO shows that a titular's request was answered. It holds no patient data:
 * the note id (of a note that no longer exists), the SHA-256 of the external id (never the id
 * itself), the key and the reason the administrator gave. Kept 5 years (notes.retention.ts), no
 * foreign key to the key, which may be revoked meanwhile.
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
    /** Hex SHA-256 of the external id (of the patient, or of the deleted note when it had one). */
    externalIdSha256: text('external_id_sha256'),
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
    // The retention run walks the log by age across clinics.
    index('note_erasures_created_idx').on(table.createdAt),
  ],
);
