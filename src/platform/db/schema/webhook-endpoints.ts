import { boolean, index, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';

/**
 * A clinic's webhook endpoint. The signing secret must be usable for signing, so it cannot be
 * hashed: it is stored encrypted (AES-256-GCM, see notes/webhooks/secrets.ts), never in clear.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description'),
    events: text('events').array().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** Why it was disabled: `manual` (PATCH) or `failing` (failed for WEBHOOK_DISABLE_AFTER_SECONDS). */
    disabledReason: text('disabled_reason', { enum: ['manual', 'failing'] }),
    secretEncrypted: text('secret_encrypted').notNull(),
    /** After a rotation the old secret keeps signing, alongside the new one, until it expires. */
    previousSecretEncrypted: text('previous_secret_encrypted'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
    /** Start of the current run of failed attempts; cleared by any successful delivery. */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('webhook_endpoints_clinic_idx').on(table.clinicId, table.createdAt)],
);
