import { index, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { chats } from './chats.ts';
import { leads } from './leads.ts';

export const CHAT_MESSAGE_STATUSES = ['queued', 'sent', 'failed'] as const;

// An outbound message of a chat. Survey messages are written `queued` in the trigger's transaction
// and delivered by a job through the configured messaging provider, which records the outcome here.
export const chatMessages = pgTable(
  'chat_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    leadId: uuid('lead_id').references(() => leads.id, { onDelete: 'set null' }),
    kind: text('kind').notNull(),
    body: text('body').notNull(),
    // Why the survey was triggered (`visit_completed_external` unless the ERP said otherwise).
    reason: text('reason'),
    status: text('status', { enum: CHAT_MESSAGE_STATUSES }).notNull().default('queued'),
    provider: text('provider'),
    providerMessageId: text('provider_message_id'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('chat_messages_chat_idx').on(table.chatId, table.createdAt)],
);
