import { z } from 'zod';
import { toTimestamp, UuidSchema } from '../../platform/http/schemas.ts';
import { MessageTemplateFields } from '../../providers/messaging/port.ts';
import type { ChatMessageRow } from './messages.repo.ts';

/** The kinds an ERP (or the Notes API) may send; `satisfaction_survey` is the survey trigger's own. */
export const SENDABLE_KINDS = ['visit_summary', 'reminder', 'other'] as const;
export type SendableKind = (typeof SENDABLE_KINDS)[number];

/** WhatsApp's limit for a free-form message body. */
export const MESSAGE_BODY_MAX = 4096;

export const MessageTemplateSchema = MessageTemplateFields.meta({
  id: 'MessageTemplate',
  description: "A WhatsApp message template: the provider's payload carries it with the body as its one parameter",
});

export const SendMessageBody = z
  .strictObject({
    kind: z.enum(SENDABLE_KINDS).meta({ description: '`visit_summary`, `reminder` or `other`' }),
    body: z
      .string()
      .min(1)
      .max(MESSAGE_BODY_MAX)
      .refine((text) => text.trim() !== '', 'must not be blank')
      .meta({ description: `The text sent, word for word (1-${MESSAGE_BODY_MAX} characters)` }),
    template: MessageTemplateSchema.nullish(),
  })
  .meta({ id: 'SendMessage' });

export type SendMessage = z.infer<typeof SendMessageBody>;

export const QueuedMessage = z
  .object({
    id: UuidSchema,
    contact_id: UuidSchema,
    chat_id: UuidSchema,
    kind: z.string(),
    body: z.string(),
    template: MessageTemplateSchema.nullable(),
    status: z.enum(['queued', 'sent', 'failed']).meta({
      description: '`queued` when answered; the delivery job then marks it `sent` or, after its retries, `failed`',
    }),
    created_at: z.string(),
  })
  .meta({ id: 'QueuedMessage', description: 'A chat message queued for delivery through the messaging provider' });

export type QueuedMessageBody = z.infer<typeof QueuedMessage>;

export function toQueuedMessage(message: ChatMessageRow, contactId: string): QueuedMessageBody {
  return {
    id: message.id,
    contact_id: contactId,
    chat_id: message.chatId,
    kind: message.kind,
    body: message.body,
    template: message.template ?? null,
    status: message.status,
    created_at: toTimestamp(message.createdAt),
  };
}
