import { signedHeaders } from '../../platform/webhook-signature.ts';
import type { MessagingProvider } from './port.ts';

export interface WebhookProviderOptions {
  url: string;
  /** MESSAGING_WEBHOOK_SECRET (`whsec_…`): every request is signed with it (Standard Webhooks). */
  secret: string;
  timeoutMs?: number;
}

/**
 * Posts each message as JSON to a URL the operator configured (a WhatsApp gateway, an automation
 * tool), signed like the note webhooks so the receiver can tell it came from us: `webhook-id` is
 * the message id (the same on every retry), `webhook-timestamp`, `webhook-signature`. A non-2xx
 * answer or a network error throws, so the job retries with backoff. A redirect is a failure and is
 * not followed: following it would send the signed message, patient phone and text included, to
 * wherever the receiver (or whoever took over its address) points.
 */
export function createWebhookProvider(options: WebhookProviderOptions): MessagingProvider {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    name: 'webhook',
    async send(message, signal) {
      const body = JSON.stringify({
        message_id: message.messageId,
        workspace_id: message.workspaceId,
        chat_id: message.chatId,
        channel: message.channel,
        to: message.to,
        kind: message.kind,
        body: message.body,
        // The gateway fills the template's one parameter with the body (the approved text, word for word).
        template: message.template
          ? { name: message.template.name, language: message.template.language, parameters: [message.body] }
          : null,
      });
      const response = await fetch(options.url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'vetflow-messaging',
          ...signedHeaders([options.secret], message.messageId, body),
        },
        body,
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text().catch(() => '');
      if (response.status >= 300 && response.status < 400) {
        throw new Error(`messaging webhook answered ${response.status}, a redirect: redirects are not followed`);
      }
      if (!response.ok) throw new Error(`messaging webhook answered ${response.status}`);
      let id: string | null = null;
      try {
        const parsed = JSON.parse(text) as { id?: unknown };
        if (typeof parsed.id === 'string') id = parsed.id;
      } catch {
        // A receiver need not answer JSON.
      }
      return { providerMessageId: id };
    },
  };
}
