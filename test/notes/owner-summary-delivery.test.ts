import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../../src/platform/webhook-signature.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { dictatedNote, startDictationServer } from '../helpers/dictated-notes.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { registerWebhook, startReceiver } from './webhooks-receiver.ts';

// A summary sent through the `webhook` messaging provider: the gateway gets the approved text
// signed, in the clinic's WhatsApp template, retried after its refusals; once it is taken, the
// delivery shows `sent` and the clinic's endpoint receives `note.owner_summary_sent`, signed.

const secret = generateSigningSecret();
// The gateway refuses the first two attempts, and every message to an unreachable number.
const UNREACHABLE = '+5511966660000';
let answered = 0;
const gateway = await startReceiver((request) => {
  if (request.body.includes(UNREACHABLE)) return 503;
  answered += 1;
  return answered <= 2 ? 503 : 200;
});
const clinicHooks = await startReceiver();
const dictation = await startDictationServer();
const t = await createTestApp({
  env: {
    ...CRM_TEST_ENV,
    ...dictation.env,
    MESSAGING_PROVIDER: 'webhook',
    MESSAGING_WEBHOOK_URL: gateway.url,
    MESSAGING_WEBHOOK_SECRET: secret,
    MESSAGING_RETRY_DELAY_SECONDS: '1',
  },
  startWorkers: true,
});
const { app } = t;
const clinic = await createClinicWithKeys(t.db.database, 'Clínica Boa Vista');
const ANA = { name: 'Dra. Ana Souza', license: 'CRMV-MG 12345' };

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, key: string, payload?: object) =>
  app.inject({ method, url: `${PREFIX}${url}`, headers: as(key), ...(payload ? { payload } : {}) });

describe('an owner summary through the webhook messaging provider', () => {
  it('reaches the gateway signed, in the template, after retries; the delivery and the webhook follow the outcome', async () => {
    const workspace = await makeWorkspace(t);
    const key = await makeKey(t, workspace.workspaceId, ['messages:send', 'contacts:write']);
    const linked = await api('PATCH', '/settings', clinic.admin, {
      crm_link: { token: key.token },
      owner_summary_template: { name: 'orientacoes_consulta', language: 'pt_BR' },
    });
    expect(linked.statusCode, linked.body).toBe(200);
    const hook = await registerWebhook(app, clinic.admin, clinicHooks.url, ['note.owner_summary_sent']);

    const noteId = await dictatedNote(
      app,
      clinic,
      dictation,
      { name: 'Mel', visit_date: '2026-12-07', tutor: { name: 'Rui Prado', phone: '+55 11 97777-2222' } },
      {
        text: 'Mel, gata de dois anos, com vômitos. Vou prescrever omeprazol um comprimido por via oral a cada 24 horas por sete dias. Retorno em 10 dias.',
      },
    );
    expect((await api('POST', `/notes/${noteId}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true })).statusCode).toBe(200);
    // No body: the standard style.
    const created = await api('POST', `/notes/${noteId}/owner_summary`, clinic.editor);
    expect(created.statusCode, created.body).toBe(201);
    const summary = created.json().data;
    const approved = (await api('POST', `/notes/${noteId}/owner_summary/approve`, clinic.editor, { approved_by: ANA })).json().data;
    const sent = await api('POST', `/notes/${noteId}/owner_summary/send`, clinic.editor);
    expect(sent.statusCode, sent.body).toBe(202);
    const { message_id: messageId, contact_id: contactId } = sent.json().data;

    const delivered = await eventually(
      async () => {
        const body = (await api('GET', `/notes/${noteId}/owner_summary`, clinic.viewer)).json().data;
        return body.deliveries[0]?.status === 'sent' ? body : undefined;
      },
      60_000,
      200,
    );
    expect(delivered.deliveries).toEqual([{ message_id: messageId, contact_id: contactId, status: 'sent', sent_at: expect.any(String) }]);

    // Three attempts, each signed; the one taken carries the text word for word as the template's parameter.
    const attempts = gateway.received
      .filter((entry) => !entry.body.includes(UNREACHABLE))
      .map((entry) => new Webhook(secret).verify(entry.body, entry.headers as Record<string, string>));
    expect(attempts).toHaveLength(3);
    expect(attempts.at(-1)).toMatchObject({
      message_id: messageId,
      to: '+5511977772222',
      kind: 'visit_summary',
      body: summary.text,
      template: { name: 'orientacoes_consulta', language: 'pt_BR', parameters: [summary.text] },
    });

    const event = await eventually(async () => clinicHooks.ofType('note.owner_summary_sent')[0], 30_000, 100);
    const payload = new Webhook(hook.secret).verify(event.body, event.headers as Record<string, string>) as {
      data: Record<string, unknown>;
    };
    expect(payload.data).toMatchObject({
      note_id: noteId,
      summary_id: summary.id,
      version: 1,
      content_sha256: approved.content_sha256,
      message_id: messageId,
      contact_id: contactId,
      status: 'sent',
      sent_at: delivered.deliveries[0].sent_at,
    });
    expect(clinicHooks.ofType('note.owner_summary_sent')).toHaveLength(1);
  });

  it('follows a message the provider gives up on: the delivery shows failed and the webhook says so', { timeout: 150_000 }, async () => {
    const noteId = await dictatedNote(
      app,
      clinic,
      dictation,
      { name: 'Bidu', visit_date: '2026-12-07', tutor: { name: 'Ivo Lima', phone: UNREACHABLE } },
      { text: 'Bidu, cão de um ano. Vou prescrever omeprazol um comprimido por via oral a cada 24 horas por sete dias.' },
    );
    await api('POST', `/notes/${noteId}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true });
    await api('POST', `/notes/${noteId}/owner_summary`, clinic.editor);
    await api('POST', `/notes/${noteId}/owner_summary/approve`, clinic.editor, { approved_by: ANA });
    const sent = await api('POST', `/notes/${noteId}/owner_summary/send`, clinic.editor);
    expect(sent.statusCode, sent.body).toBe(202);
    const failed = await eventually(
      async () => {
        const body = (await api('GET', `/notes/${noteId}/owner_summary`, clinic.viewer)).json().data;
        return body.deliveries[0]?.status === 'failed' ? body : undefined;
      },
      140_000,
      500,
    );
    expect(failed.deliveries[0]).toMatchObject({ message_id: sent.json().data.message_id, status: 'failed', sent_at: null });
    // The CRM's own retries: one first attempt and five more.
    expect(gateway.received.filter((entry) => entry.body.includes(UNREACHABLE))).toHaveLength(6);
    const event = await eventually(
      async () => clinicHooks.ofType('note.owner_summary_sent').find((entry) => entry.body.includes(noteId)),
      30_000,
      100,
    );
    expect(JSON.parse(event.body).data).toMatchObject({ note_id: noteId, status: 'failed', sent_at: null });
  });
});
