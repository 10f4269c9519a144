import { z } from 'zod';

/** An outbound chat message, as a messaging provider sees it (no knowledge of our tables). */
export interface OutboundMessage {
  readonly messageId: string;
  readonly workspaceId: string;
  readonly chatId: string;
  readonly channel: string;
  /** E.164 phone of the recipient. */
  readonly to: string;
  readonly kind: string;
  readonly body: string;
  /** A WhatsApp template to send the body in, as its one parameter; null for a free-form message. */
  readonly template: { readonly name: string; readonly language: string } | null;
}

export interface MessagingProvider {
  readonly name: string;
  /** Delivers or hands over the message; throws to have the job retried. Returns the provider's message id, if any. */
  send(message: OutboundMessage, signal?: AbortSignal): Promise<{ providerMessageId: string | null }>;
}

/**
 * A WhatsApp message template as a sender names it: the CRM route's `template` and the Notes
 * setting `owner_summary_template` both take this shape, so what one accepts the other sends.
 */
export const MessageTemplateFields = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/, 'lower-case letters, digits and _ (a WhatsApp template name)')
    .meta({ description: 'The approved WhatsApp template, e.g. `orientacoes_consulta`' }),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'a WhatsApp language code such as pt_BR')
    .meta({ description: 'Its language code, e.g. `pt_BR`' }),
});
