import { index, jsonb, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { chats } from './chats.ts';
import { leads } from './leads.ts';

export const CHAT_MESSAGE_STATUSES = ['queued', 'sent', 'failed'] as const;

/** What a message is: a survey the CRM sent, or one an ERP (or the Notes API) asked for. */
export const CHAT_MESSAGE_KINDS = ['satisfaction_survey', 'visit_summary', 'reminder', 'other'] as const;

/** A WhatsApp message template the provider is asked to use, the body as its one parameter. */
export interface MessageTemplate {
  name: string;
  language: string;
}

// An outbound message of a chat. Messages are written `queued` in the transaction that asks for them
// (a survey trigger, POST …/contacts/{id}/messages) and delivered by a job through the configured messaging provider, which records the outcome here.
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
    /** The template to send the body in (WhatsApp outside the 24 h window), null for a free-form message. */
    template: jsonb('template').$type<MessageTemplate | null>(),
    status: text('status', { enum: CHAT_MESSAGE_STATUSES }).notNull().default('queued'),
    provider: text('provider'),
    providerMessageId: text('provider_message_id'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('chat_messages_chat_idx').on(table.chatId, table.createdAt)],
);
