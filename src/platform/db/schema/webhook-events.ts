import { index, jsonb, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';

/**
 * The outbox: one row per event, written in the transaction of the change that causes it. The
 * payload is fixed at that moment, so every attempt and redelivery sends the same body. Its id is
 * the `webhook-id` header (the receiver's idempotency key).
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<WebhookPayload>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('webhook_events_clinic_idx').on(table.clinicId, table.createdAt),
    // The retention job walks events by age across clinics.
    index('webhook_events_created_idx').on(table.createdAt),
  ],
);

export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}
