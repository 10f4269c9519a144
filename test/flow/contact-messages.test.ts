import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { contactUpserter } from '../../src/flow/contacts/upsert.service.ts';
import { chatMessageJob } from '../../src/flow/messages/chat-message.job.ts';
import { crmLinkService } from '../../src/flow/messages/crm-link.service.ts';
import { messagesService } from '../../src/flow/messages/messages.service.ts';
import { eq } from '../../src/platform/db/drizzle.ts';
import { chatMessages, chats } from '../../src/platform/db/schema/index.ts';
import { generateSigningSecret } from '../../src/platform/webhook-signature.ts';
import { createRecordProvider } from '../../src/providers/messaging/record.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';

// POST /external/contacts/{id}/messages end to end: queued in the contact's chat (opened when
// missing), delivered signed through the webhook provider with its template, once per
// Idempotency-Key, refused without the scope, for another workspace's contact, and erased with the contact.

const received: Record<string, unknown>[] = [];
const secret = generateSigningSecret();
const gateway = createServer((request, response) => {
  let text = '';
  request.on('data', (chunk) => {
    text += chunk;
  });
  request.on('end', () => {
    received.push(new Webhook(secret).verify(text, request.headers as Record<string, string>) as Record<string, unknown>);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `gw-${received.length}` }));
  });
});
await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => gateway.close(() => resolve())));

const t = await createTestApp({
  env: {
    ...CRM_TEST_ENV,
    MESSAGING_PROVIDER: 'webhook',
    MESSAGING_WEBHOOK_URL: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/messages`,
    MESSAGING_WEBHOOK_SECRET: secret,
    MESSAGING_RETRY_DELAY_SECONDS: '1',
  },
  startWorkers: true,
});
const { app } = t;
const db = t.db.database.db;

const ws = await makeWorkspace(t);
const key = await makeKey(t, ws.workspaceId);
const auth = { authorization: `Bearer ${key.token}` };

async function newContact(externalId: string, phone: string, headers = auth, workspaceId = ws.workspaceId) {
  const response = await app.inject({
    method: 'PUT',
    url: `/flow/v1/external/workspaces/${workspaceId}/contacts`,
    headers,
    payload: { external_id: externalId, name: 'Lia Souza', phone },
  });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json().contact as { id: string };
}

const send = (contactId: string, payload: object, headers: Record<string, string> = auth) =>
  app.inject({ method: 'POST', url: `/flow/v1/external/contacts/${contactId}/messages`, headers, payload });

const sentMessage = (id: string) =>
  eventually(
    async () => {
      const [row] = await db.select().from(chatMessages).where(eq(chatMessages.id, id));
      return row?.status === 'sent' ? row : undefined;
    },
    30_000,
    100,
  );

describe('POST /external/contacts/{id}/messages', () => {
  it("opens a chat for a contact without one, queues the message and delivers it signed, with the clinic's template", async () => {
    const contact = await newContact('tutor-1', '31 98888-1111');
    const body = 'Olá, Lia! Orientações da consulta do Thor: Meloxicam 1 comprimido pela boca a cada 24 horas, por 5 dias.';
    const response = await send(contact.id, { kind: 'visit_summary', body, template: { name: 'orientacoes_consulta', language: 'pt_BR' } });
    expect(response.statusCode, response.body).toBe(202);
    const queued = response.json();
    expect(queued).toMatchObject({ contact_id: contact.id, kind: 'visit_summary', body, status: 'queued' });
    const [chat] = await db.select().from(chats).where(eq(chats.contactId, contact.id));
    expect(chat).toMatchObject({ id: queued.chat_id, channel: 'whatsapp' });

    expect(await sentMessage(queued.id)).toMatchObject({ provider: 'webhook', providerMessageId: expect.stringMatching(/^gw-/) });
    expect(received).toContainEqual(
      expect.objectContaining({
        message_id: queued.id,
        chat_id: chat!.id,
        to: '+5531988881111',
        kind: 'visit_summary',
        body,
        template: { name: 'orientacoes_consulta', language: 'pt_BR', parameters: [body] },
      }),
    );
  });

  it('goes to the newest chat the contact has, also under the workspace path', async () => {
    const contact = await newContact('tutor-2', '31 98888-2222');
    const first = (await send(contact.id, { kind: 'reminder', body: 'Lembrete: retorno amanhã.' })).json();
    const again = await app.inject({
      method: 'POST',
      url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts/${contact.id}/messages`,
      headers: auth,
      payload: { kind: 'other', body: 'Chegou o resultado do exame.' },
    });
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toMatchObject({ chat_id: first.chat_id, template: null });
    expect(await db.select().from(chats).where(eq(chats.contactId, contact.id))).toHaveLength(1);
  });

  it('sends nothing twice for one Idempotency-Key, and refuses the key with another body', async () => {
    const contact = await newContact('tutor-3', '31 98888-3333');
    const headers = { ...auth, 'idempotency-key': 'summary-note-42' };
    const payload = { kind: 'visit_summary', body: 'Orientações: retorno em 15 dias.' };
    const first = await send(contact.id, payload, headers);
    const replay = await send(contact.id, payload, headers);
    expect(replay.statusCode).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    const rows = await db.select().from(chatMessages).where(eq(chatMessages.chatId, first.json().chat_id));
    expect(rows).toHaveLength(1);
    const reused = await send(contact.id, { ...payload, body: 'Outro texto' }, headers);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses bad bodies, a key without messages:send, and contacts it cannot reach', async () => {
    const contact = await newContact('tutor-4', '31 98888-4444');
    for (const payload of [
      {},
      { kind: 'visit_summary' },
      { kind: 'satisfaction_survey', body: 'x' },
      { kind: 'other', body: '   ' },
      { kind: 'other', body: 'x'.repeat(4097) },
      { kind: 'other', body: 'x', template: { name: 'Bad Name', language: 'pt_BR' } },
      { kind: 'other', body: 'x', extra: true },
    ]) {
      const response = await send(contact.id, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toMatchObject({ code: expect.any(String), request_id: expect.any(String) });
    }
    const narrow = await makeKey(t, ws.workspaceId, ['contacts:read']);
    const refused = await send(contact.id, { kind: 'other', body: 'x' }, { authorization: `Bearer ${narrow.token}` });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { required_scope: 'messages:send' } });

    const other = await makeWorkspace(t);
    const otherKey = await makeKey(t, other.workspaceId);
    const theirs = await send(contact.id, { kind: 'other', body: 'x' }, { authorization: `Bearer ${otherKey.token}` });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().code).toBe('CONTACT_NOT_FOUND');
    const wrongPath = await app.inject({
      method: 'POST',
      url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts/${contact.id}/messages`,
      headers: { authorization: `Bearer ${otherKey.token}` },
      payload: { kind: 'other', body: 'x' },
    });
    expect(wrongPath.json().code).toBe('WORKSPACE_MISMATCH');

    await app.inject({ method: 'DELETE', url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts/${contact.id}`, headers: auth });
    const deleted = await send(contact.id, { kind: 'other', body: 'x' });
    expect(deleted.statusCode).toBe(404);
  });

  it('erases the messages with the contact', async () => {
    const contact = await newContact('tutor-5', '31 98888-5555');
    const queued = (await send(contact.id, { kind: 'visit_summary', body: 'Thor: Meloxicam por 5 dias.' })).json();
    await sentMessage(queued.id);
    const erased = await app.inject({
      method: 'POST',
      url: `/flow/v1/external/workspaces/${ws.workspaceId}/contacts/${contact.id}/erase`,
      headers: auth,
    });
    expect(erased.statusCode).toBe(200);
    const [row] = await db.select().from(chatMessages).where(eq(chatMessages.id, queued.id));
    expect(row!.body).not.toContain('Meloxicam');
    expect(row!.providerMessageId).toBeNull();
  });
});

describe('the CRM link the Notes API uses', () => {
  // Bound as the composition root binds it for the Notes API, over this app's database and queue
  // (the delivery job's queue is the app's own: the definition only names it).
  const messages = messagesService({
    db,
    jobs: app.vetflow.jobs,
    job: chatMessageJob({ db, provider: createRecordProvider(), retryDelaySeconds: 1 }),
  });
  const link = crmLinkService({ db, upserter: contactUpserter({ db, batchItemsPerMinute: 10_000 }), messages });
  const crmLink = () => link;
  const origin = { id: 'req-notes-1', ip: '127.0.0.1' };

  it("describes a key by its token and nothing else: prefix and workspace, never the token's secret part", async () => {
    const described = await crmLink().describeKey(key.token);
    expect(described).toMatchObject({ workspaceId: ws.workspaceId, scopes: expect.arrayContaining(['messages:send']) });
    expect(key.token.startsWith(described!.prefix)).toBe(true);
    expect(described!.prefix.length).toBeLessThan(key.token.length);
    expect(await crmLink().describeKey('crm_live_not-a-token')).toBeNull();
    expect(await crmLink().describeKey(`crm_live_${'A'.repeat(38)}`)).toBeNull();
  });

  it('finds the tutor by external id, then phone, and creates one only with a name and a phone', async () => {
    const linked = (await crmLink().describeKey(key.token))!;
    const existing = await newContact('tutor-6', '31 98888-6666');
    const message = { kind: 'visit_summary' as const, body: 'Orientações da consulta.' };
    const byId = await crmLink().sendToTutor(linked, { externalId: 'tutor-6' }, message, undefined, origin);
    expect(byId.body.contact_id).toBe(existing.id);
    const byPhone = await crmLink().sendToTutor(linked, { phone: '(31) 98888-6666' }, message, undefined, origin);
    expect(byPhone.body.contact_id).toBe(existing.id);
    await expect(crmLink().sendToTutor(linked, { phone: '31 98888-7777' }, message, undefined, origin)).rejects.toMatchObject({
      code: 'TUTOR_REQUIRED',
    });
    const created = await crmLink().sendToTutor(
      linked,
      { phone: '31 98888-7777', name: 'Rui Lima', externalId: 'tutor-7' },
      message,
      undefined,
      origin,
    );
    const again = await crmLink().sendToTutor(linked, { externalId: 'tutor-7' }, message, undefined, origin);
    expect(again.body.contact_id).toBe(created.body.contact_id);
  });

  it('refuses a linked key without messages:send', async () => {
    const narrow = (await crmLink().describeKey((await makeKey(t, ws.workspaceId, ['contacts:read'])).token))!;
    await expect(
      crmLink().sendToTutor(narrow, { externalId: 'tutor-6' }, { kind: 'other', body: 'x' }, undefined, origin),
    ).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
    });
  });
});
