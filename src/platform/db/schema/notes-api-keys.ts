import { index, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';

/** Notes API keys. Only the SHA-256 of the key is stored; the key itself is shown once. */
export const notesApiKeys = pgTable(
  'notes_api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    role: text('role', { enum: ['administrator', 'editor', 'viewer'] }).notNull(),
    permissions: text('permissions').array().notNull(),
    /** Hex SHA-256 of the whole key: the lookup path of every request. */
    keyHash: text('key_hash').notNull().unique(),
    /** The first characters of the key, enough for a person to recognise it. */
    prefix: text('prefix').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    /** The key that created this one; null when the operator created it (CLI, first start). */
    createdByKeyId: uuid('created_by_key_id'),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('notes_api_keys_clinic_idx').on(table.clinicId, table.createdAt)],
);
