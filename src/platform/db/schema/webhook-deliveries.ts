import { index, integer, pgTable, sql, text, timestamp, uuid } from '../drizzle.ts';
import { webhookEndpoints } from './webhook-endpoints.ts';
import { webhookEvents } from './webhook-events.ts';

export type WebhookDeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed';

/**
 * One event on its way to one endpoint: attempts, the last outcome and when the next attempt is
 * due. A redelivery is a new row for the same event. `claimed_until` makes an attempt exclusive
 * (two workers never send the same delivery) and lets another worker take over after a crash.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id')
      .notNull()
      .references(() => webhookEvents.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'delivering', 'delivered', 'failed'] })
      .$type<WebhookDeliveryStatus>()
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('webhook_deliveries_endpoint_idx').on(table.endpointId, table.createdAt.desc(), table.id.desc()),
    index('webhook_deliveries_event_idx').on(table.eventId),
    index('webhook_deliveries_due_idx').on(table.status, table.nextAttemptAt).where(sql`status in ('pending', 'delivering')`),
  ],
);
