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
