import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, expect, it } from 'vitest';
import { eq } from '../../src/platform/db/drizzle.ts';
import { chatMessages } from '../../src/platform/db/schema/index.ts';
import { generateSigningSecret } from '../../src/platform/webhook-signature.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeWorkspace } from '../helpers/crm.ts';

// The webhook messaging provider posts the survey message, signed, to a local receiver; a 503 is retried.
const received: Record<string, unknown>[] = [];
const secret = generateSigningSecret();
let failuresLeft = 1;
const server = createServer((request, response) => {
  let text = '';
  request.on('data', (chunk) => {
    text += chunk;
  });
  request.on('end', () => {
    if (failuresLeft-- > 0) {
      response.writeHead(503).end();
      return;
    }
    // Parsed only once its signature verifies (throws otherwise, and the test sees no message).
    received.push(new Webhook(secret).verify(text, request.headers as Record<string, string>) as Record<string, unknown>);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'gw-123' }));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/messages`;

const t = await createTestApp({
  // A one-second first retry: the retry is real, without waiting the production 10 s for it.
  env: {
    ...CRM_TEST_ENV,
    MESSAGING_PROVIDER: 'webhook',
    MESSAGING_WEBHOOK_URL: url,
    MESSAGING_WEBHOOK_SECRET: secret,
    MESSAGING_RETRY_DELAY_SECONDS: '1',
  },
  startWorkers: true,
});
const { app } = t;

it('delivers the survey message to the configured webhook, retrying a failure', async () => {
  const ws = await makeWorkspace(t);
  const key = await makeKey(t, ws.workspaceId);
  const cookie = await loginCookie(app, ws.admin.email, ws.admin.password);
  const W = `/flow/v1/api/workspaces/${ws.workspaceId}`;
  const crm = (method: 'POST' | 'PUT', path: string, payload: object) =>
    app.inject({ method, url: `${W}${path}`, headers: { cookie }, payload });
  const contact = (
    await app.inject({
      method: 'PUT',
      url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts`,
      headers: { authorization: `Bearer ${key.token}` },
      payload: { external_id: 'wh-1', name: 'Lia', phone: '31 97777-1234' },
    })
  ).json().contact;
  const stage = (await crm('POST', '/pipeline-stages', { name: 'Pesquisa', position: 1 })).json();
  await crm('POST', '/leads', { contact_id: contact.id, stage_id: stage.id });
  await crm('POST', '/chats', { contact_id: contact.id, channel: 'whatsapp' });
  await crm('PUT', '/survey-config', { enabled: true, survey_stage_id: stage.id });

  const trigger = await app.inject({
    method: 'POST',
    url: `/flow/v1/external/workspaces/${ws.workspaceId}/satisfaction-surveys`,
    headers: { authorization: `Bearer ${key.token}` },
    payload: { external_id: 'wh-1' },
  });
  expect(trigger.json()).toMatchObject({ triggered: true, reason: 'visit_completed_external' });
  const [message] = await eventually(
    async () => {
      const rows = await t.db.database.db.select().from(chatMessages).where(eq(chatMessages.status, 'sent'));
      return rows.length ? rows : undefined;
    },
    60_000,
    200,
  );
  expect(message).toMatchObject({ provider: 'webhook', providerMessageId: 'gw-123' });
  expect(received).toEqual([
    expect.objectContaining({ message_id: message!.id, to: '+5531977771234', channel: 'whatsapp', kind: 'satisfaction_survey' }),
  ]);
}, 90_000);
