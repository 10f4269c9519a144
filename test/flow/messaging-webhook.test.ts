import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.ts';
import { generateSigningSecret } from '../../src/platform/webhook-signature.ts';
import { createWebhookProvider } from '../../src/providers/messaging/webhook.ts';

// The messaging webhook as a gateway sees it: local HTTP servers play the gateway (and the place a
// redirect would lead to).
interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

async function gateway(answer: (hit: Hit) => { status: number; headers?: Record<string, string>; body?: string }) {
  const hits: Hit[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const hit = { headers: request.headers, body };
      hits.push(hit);
      const { status, headers, body: text } = answer(hit);
      response.writeHead(status, headers).end(text ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/messages`, hits };
}

const message = {
  messageId: 'a3c1d7e2-0000-4000-8000-000000000001',
  workspaceId: 'w-1',
  chatId: 'c-1',
  channel: 'whatsapp',
  to: '+5531977771234',
  kind: 'satisfaction_survey',
  body: 'Como foi a consulta?',
  template: null,
};

describe('the messaging webhook', () => {
  it('signs every message so the receiver can verify it with a Standard Webhooks library', async () => {
    const secret = generateSigningSecret();
    const receiver = await gateway(() => ({ status: 200, body: JSON.stringify({ id: 'gw-1' }) }));
    const provider = createWebhookProvider({ url: receiver.url, secret });
    await expect(provider.send(message)).resolves.toEqual({ providerMessageId: 'gw-1' });
    const [hit] = receiver.hits;
    expect(hit?.headers['webhook-id']).toBe(message.messageId);
    const verified = new Webhook(secret).verify(hit!.body, hit!.headers as Record<string, string>);
    expect(verified).toMatchObject({ message_id: message.messageId, to: message.to });
    // Another secret does not verify: the signature is the sender's proof.
    expect(() => new Webhook(generateSigningSecret()).verify(hit!.body, hit!.headers as Record<string, string>)).toThrow();
  });

  it('carries a WhatsApp template with the body as its one parameter, under the signature', async () => {
    const secret = generateSigningSecret();
    const receiver = await gateway(() => ({ status: 200 }));
    const provider = createWebhookProvider({ url: receiver.url, secret });
    await provider.send({ ...message, kind: 'visit_summary', template: { name: 'orientacoes_consulta', language: 'pt_BR' } });
    const verified = new Webhook(secret).verify(receiver.hits[0]!.body, receiver.hits[0]!.headers as Record<string, string>);
    expect(verified).toMatchObject({
      kind: 'visit_summary',
      body: message.body,
      template: { name: 'orientacoes_consulta', language: 'pt_BR', parameters: [message.body] },
    });
  });

  it('treats a redirect as a failure and never follows it', async () => {
    const elsewhere = await gateway(() => ({ status: 200 }));
    for (const status of [301, 302, 303, 307, 308]) {
      const redirecting = await gateway(() => ({ status, headers: { location: elsewhere.url } }));
      const provider = createWebhookProvider({ url: redirecting.url, secret: generateSigningSecret() });
      await expect(provider.send(message), String(status)).rejects.toThrow(new RegExp(`answered ${status}, a redirect`));
      expect(redirecting.hits).toHaveLength(1);
    }
    expect(elsewhere.hits).toHaveLength(0);
  });

  it('will not start without a signing secret', () => {
    const env = { MESSAGING_PROVIDER: 'webhook', MESSAGING_WEBHOOK_URL: 'https://gateway.example.com/messages' };
    expect(() => loadConfig(env)).toThrow(/MESSAGING_WEBHOOK_SECRET/);
    expect(() => loadConfig({ ...env, MESSAGING_WEBHOOK_SECRET: 'hunter2' })).toThrow(/MESSAGING_WEBHOOK_SECRET/);
    expect(loadConfig({ ...env, MESSAGING_WEBHOOK_SECRET: generateSigningSecret() }).MESSAGING_PROVIDER).toBe('webhook');
  });
});
