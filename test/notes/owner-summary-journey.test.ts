import { describe, expect, it } from 'vitest';
import { eq } from '../../src/platform/db/drizzle.ts';
import { chatMessages, chats, contacts } from '../../src/platform/db/schema/index.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { dictatedNote, startDictationServer } from '../helpers/dictated-notes.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';

// The "done when", as a new user would try it: a clinic links its CRM workspace, a vet signs
// a note with two prescriptions and a return in 15 days, creates, approves and sends the summary;
// the contact's chat holds one visit_summary whose body is the approved text (≤ 1,024 characters,
// every number found in the signed note), the history shows the hash, and the same
// Idempotency-Key sends nothing twice.

const dictation = await startDictationServer();
const t = await createTestApp({ env: { ...CRM_TEST_ENV, ...dictation.env }, startWorkers: true });
const { app } = t;
const db = t.db.database.db;
const clinic = await createClinicWithKeys(t.db.database, 'Clínica Boa Vista');
const workspace = await makeWorkspace(t);
const crmKey = await makeKey(t, workspace.workspaceId, ['contacts:read', 'contacts:write', 'messages:send']);

const CONSULTATION = [
  'Thor, cão de seis anos, com coceira e dor no ouvido esquerdo há uma semana.',
  'Diagnóstico: otite externa no ouvido esquerdo.',
  'Vou prescrever meloxicam um comprimido por via oral a cada 24 horas por cinco dias.',
  'E amoxicilina com clavulanato, um comprimido de doze em doze horas por dez dias.',
  'Retorno em 15 dias para reavaliar.',
].join(' ');

const api = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, key: string, payload?: object, headers: object = {}) =>
  app.inject({ method, url: `${PREFIX}${url}`, headers: { ...as(key), ...headers }, ...(payload ? { payload } : {}) });

describe('the owner summary, from a signed note to the tutor’s chat', () => {
  it('is linked, made, approved and sent once; the chat holds exactly the approved text', async () => {
    const linked = await api('PATCH', '/settings', clinic.admin, { crm_link: { token: crmKey.token } });
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json().data.crm_link).toEqual({
      workspace_id: workspace.workspaceId,
      workspace_name: expect.any(String),
      key_prefix: expect.any(String),
    });
    expect(linked.body).not.toContain(crmKey.token);

    const noteId = await dictatedNote(
      app,
      clinic,
      dictation,
      {
        name: 'Thor',
        species: 'canine',
        visit_date: '2026-12-07',
        tutor: { name: 'Lia Souza Prado', phone: '(31) 98888-1111', external_id: 'tutor-lia' },
      },
      { text: CONSULTATION },
    );
    const signed = await api('POST', `/notes/${noteId}/sign`, clinic.editor, {
      signed_by: { name: 'Dra. Ana Souza', license: 'CRMV-MG 12345' },
      acknowledge_flags: true,
    });
    expect(signed.statusCode, signed.body).toBe(200);
    const note = signed.json().data;
    expect(note.plan.medications).toHaveLength(2);

    // No drafting server here: the plain style is refused, the standard one is built from the note.
    const plain = await api('POST', `/notes/${noteId}/owner_summary`, clinic.editor, { style: 'plain' });
    expect(plain.statusCode).toBe(422);
    expect(plain.json().details.field).toBe('style');
    const created = await api('POST', `/notes/${noteId}/owner_summary`, clinic.editor, {});
    expect(created.statusCode, created.body).toBe(201);
    const summary = created.json().data;
    expect(summary).toMatchObject({ version: 1, status: 'draft', style: 'standard', content_sha256: null, deliveries: [] });
    expect(summary.text).toContain('Olá, Lia!');
    expect(summary.text).toContain('O que encontramos: otite (inflamação do ouvido) externa no ouvido esquerdo.\n');
    expect(summary.text).toContain('Meloxicam: 1 comprimido pela boca a cada 24 horas, por 5 dias');
    expect(summary.text).toContain('Retorno: 22/12/2026.');
    expect(summary.text).toContain('Clínica Boa Vista. Dúvidas? Responda esta mensagem.');
    expect(summary.characters).toBe(summary.text.length);
    expect(summary.characters).toBeLessThanOrEqual(1024);

    const approved = await api('POST', `/notes/${noteId}/owner_summary/approve`, clinic.editor, {
      approved_by: { name: 'Dra. Ana Souza', license: 'CRMV-MG 12345' },
    });
    expect(approved.statusCode, approved.body).toBe(200);
    const sha = approved.json().data.content_sha256;
    expect(sha).toBe(await sha256Hex(summary.text));

    const send = () => api('POST', `/notes/${noteId}/owner_summary/send`, clinic.editor, {}, { 'idempotency-key': 'send-thor-1' });
    const first = await send();
    expect(first.statusCode, first.body).toBe(202);
    const sent = first.json().data;
    expect(sent).toEqual({ message_id: expect.any(String), contact_id: expect.any(String), chat_id: expect.any(String), status: 'queued' });
    const again = await send();
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json().data).toEqual(sent);

    // One contact (created from the note's tutor), one chat, one message: the approved text, word for word.
    const [contact] = await db.select().from(contacts).where(eq(contacts.id, sent.contact_id));
    expect(contact).toMatchObject({ workspaceId: workspace.workspaceId, externalId: 'tutor-lia', phone: '+5531988881111' });
    const [chat] = await db.select().from(chats).where(eq(chats.contactId, contact!.id));
    const messages = await db.select().from(chatMessages).where(eq(chatMessages.chatId, chat!.id));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ kind: 'visit_summary', body: summary.text });
    expect(messages[0]!.body.length).toBeLessThanOrEqual(1024);

    // Every number of the message is in the signed note (its words, plan and visit date).
    const noteNumbers = new Set(numbersOf(`${JSON.stringify(note)} 07/12/2026 22/12/2026`));
    for (const number of numbersOf(messages[0]!.body)) expect(noteNumbers, `number ${number}`).toContain(number);

    // The history holds the hash; the delivery follows the message to `sent`.
    const events = (await api('GET', `/notes/${noteId}/history`, clinic.viewer)).json().data as { event: string; details: any }[];
    expect(events.filter((event) => event.event === 'owner_summary_approved').map((event) => event.details.content_sha256)).toEqual([sha]);
    expect(events.filter((event) => event.event === 'owner_summary_sent')).toHaveLength(1);
    const delivered = await eventually(
      async () => {
        const body = (await api('GET', `/notes/${noteId}/owner_summary`, clinic.viewer)).json().data;
        return body.deliveries[0]?.status === 'sent' ? body : undefined;
      },
      30_000,
      100,
    );
    expect(delivered.deliveries).toEqual([
      { message_id: sent.message_id, contact_id: sent.contact_id, status: 'sent', sent_at: expect.any(String) },
    ]);
  });
});

function numbersOf(text: string): string[] {
  return text.match(/\d+/g) ?? [];
}

async function sha256Hex(text: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
