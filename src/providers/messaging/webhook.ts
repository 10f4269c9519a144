import type { MessagingProvider } from './port.ts';

/**
 * Posts each message as JSON to a URL the operator configured (a WhatsApp gateway, an automation
 * tool). A non-2xx answer or a network error throws, so the job retries with backoff.
 */
export function createWebhookProvider(url: string, timeoutMs = 10_000): MessagingProvider {
  return {
    name: 'webhook',
    async send(message, signal) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'vetflow-messaging' },
        body: JSON.stringify({
          message_id: message.messageId,
          workspace_id: message.workspaceId,
          chat_id: message.chatId,
          channel: message.channel,
          to: message.to,
          kind: message.kind,
          body: message.body,
        }),
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text().catch(() => '');
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
