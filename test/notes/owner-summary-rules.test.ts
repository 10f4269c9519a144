import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/flow/callers.ts';
import { crmKeysService } from '../../src/flow/keys/keys.service.ts';
import { eq, sql } from '../../src/platform/db/drizzle.ts';
import { chatMessages, chats, contacts } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { rowsOf } from '../helpers/database.ts';
import { dictatedNote, startDictationServer } from '../helpers/dictated-notes.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { chatCompletion, json, startFakeServer } from '../providers/fake-openai-server.ts';

// The owner summary's rules: grounding refusals (a vet's edit and a drafted rewrite), the refusals
// of approve and send in their order, the CRM link's settings, and tenancy (a clinic sends only
// through its own link; the workspace linked is always the key's own).

const dictation = await startDictationServer();
const drafting = await startFakeServer();
let rewrite: unknown = { text: '' };
drafting.handle((_request, response) => json(response, 200, chatCompletion(rewrite)));

const t = await createTestApp({
  env: { ...CRM_TEST_ENV, ...dictation.env, DRAFTING_PROVIDER: 'openai', DRAFTING_BASE_URL: drafting.baseUrl, DRAFTING_MODEL: 'm' },
  startWorkers: true,
});
const { app } = t;
const db = t.db.database.db;
const clinic = await createClinicWithKeys(t.db.database, 'Clínica Boa Vista');
const other = await createClinicWithKeys(t.db.database, 'Clínica Outra');
const ANA = { name: 'Dra. Ana Souza', license: 'CRMV-MG 12345' };

const CONSULTATION = [
  'Thor, cão de seis anos, com dor no ouvido esquerdo há uma semana.',
  'Diagnóstico: otite externa no ouvido esquerdo.',
  'Vou prescrever meloxicam um comprimido por via oral a cada 24 horas por cinco dias.',
  'E amoxicilina com clavulanato, um comprimido de doze em doze horas por dez dias.',
  'Retorno em 15 dias para reavaliar.',
].join(' ');

const api = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, key: string, payload?: object) =>
  app.inject({ method, url: `${PREFIX}${url}`, headers: as(key), ...(payload ? { payload } : {}) });

async function thor(tutor: object | null = { name: 'Lia Souza', phone: '31 98888-1111', external_id: 'tutor-lia' }, keys = clinic) {
  return dictatedNote(
    app,
    keys,
    dictation,
    { name: 'Thor', visit_date: '2026-12-07', ...(tutor ? { tutor } : {}) },
    { text: CONSULTATION },
  );
}

const sign = (noteId: string, key = clinic.editor) =>
  api('POST', `/notes/${noteId}/sign`, key, { signed_by: ANA, acknowledge_flags: true });
const summarise = async (noteId: string, payload: object = {}, key = clinic.editor) => {
  const response = await api('POST', `/notes/${noteId}/owner_summary`, key, payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data;
};

describe('grounding: nothing clinical the note does not say', () => {
  it('refuses a vet’s edit with an invented dose, a changed interval, a swapped side or a drug not in the note', async () => {
    const noteId = await thor();
    const { text } = await summarise(noteId);
    const cases: [string, string, string][] = [
      ['an invented dose', text.replace('Meloxicam: 1 comprimido', 'Meloxicam: 3 comprimidos'), '3'],
      ['a changed interval', text.replace('a cada 24 horas', 'a cada 8 horas'), '8'],
      ['a swapped side', `${text}\nLimpe o ouvido direito.`, 'direito'],
      ['a drug not in the note', `${text}\nDê também prednisolona.`, 'prednisolona'],
    ];
    for (const [what, edited, token] of cases) {
      const response = await api('PUT', `/notes/${noteId}/owner_summary`, clinic.editor, { text: edited });
      expect(response.statusCode, `${what}: ${response.body}`).toBe(422);
      expect(response.json()).toMatchObject({ code: 'SUMMARY_NOT_GROUNDED' });
      expect(response.json().details.tokens.join(' ').toLowerCase(), what).toContain(token);
    }
    // The vet's own words that state only what the note says are kept.
    const shorter = 'Olá, Lia! Thor tem otite no ouvido esquerdo. Meloxicam 1 comprimido a cada 24 horas por 5 dias. Retorno: 22/12/2026.';
    const kept = await api('PUT', `/notes/${noteId}/owner_summary`, clinic.editor, { text: shorter });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json().data).toMatchObject({ text: shorter, characters: shorter.length, status: 'draft' });
    const tooLong = await api('PUT', `/notes/${noteId}/owner_summary`, clinic.editor, { text: 'a'.repeat(1025) });
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json().details.field).toBe('text');
  });

  it('uses a grounded plain rewrite, and refuses an ungrounded one for the built text with a flag saying why', async () => {
    const noteId = await thor();
    const standard = await summarise(noteId);
    rewrite = {
      text: 'Oi, Lia! O Thor está com otite no ouvido esquerdo. Dê Meloxicam, 1 comprimido a cada 24 horas, por 5 dias. Retorno: 22/12/2026.',
    };
    const plain = await summarise(noteId, { style: 'plain' });
    expect(plain).toMatchObject({ version: 2, style: 'plain', text: (rewrite as { text: string }).text, review_flags: [] });

    for (const [what, text, token] of [
      ['an invented dose', 'Oi, Lia! Dê Meloxicam, 2 comprimidos a cada 24 horas, por 5 dias.', '2'],
      ['a changed duration', 'Oi, Lia! Dê Meloxicam, 1 comprimido a cada 24 horas, por 9 dias.', '9'],
      ['a swapped side', 'Oi, Lia! O Thor está com otite no ouvido direito.', 'direito'],
      ['a drug not in the note', 'Oi, Lia! Dê Meloxicam e dipirona.', 'dipirona'],
    ]) {
      rewrite = { text };
      const refused = await summarise(noteId, { style: 'plain' });
      expect(refused.text, what).toBe(standard.text);
      expect(
        refused.review_flags.map((flag: { reason: string }) => flag.reason),
        what,
      ).toContain('ungrounded');
      expect(
        refused.review_flags
          .map((flag: { token: string }) => flag.token)
          .join(' ')
          .toLowerCase(),
        what,
      ).toContain(token);
    }
    rewrite = 'not json at all';
    expect(await summarise(noteId, { style: 'plain' })).toMatchObject({
      text: standard.text,
      review_flags: [{ reason: 'drafting_invalid' }],
    });
  });
});

describe('approve and send, refused in order', () => {
  it('answers 409 SUMMARY_NOT_APPROVED, then CRM_NOT_LINKED, then 422 TUTOR_REQUIRED; approval needs a signed note', async () => {
    const noteId = await thor(null);
    const send = (payload?: object) => api('POST', `/notes/${noteId}/owner_summary/send`, clinic.editor, payload);
    expect((await send()).json().code).toBe('SUMMARY_NOT_FOUND');
    await summarise(noteId);
    // Neither approved nor linked: the approval is named first.
    expect((await send()).json()).toMatchObject({ code: 'SUMMARY_NOT_APPROVED' });
    const early = await api('POST', `/notes/${noteId}/owner_summary/approve`, clinic.editor, { approved_by: ANA });
    expect(early.statusCode).toBe(409);
    expect(early.json().code).toBe('NOTE_NOT_SIGNED');
    expect((await sign(noteId)).statusCode).toBe(200);
    const approved = await api('POST', `/notes/${noteId}/owner_summary/approve`, clinic.editor, { approved_by: ANA });
    expect(approved.json().data).toMatchObject({ status: 'approved', approved_by: ANA, approved_at: expect.any(String) });
    const edit = await api('PUT', `/notes/${noteId}/owner_summary`, clinic.editor, { text: 'Olá!' });
    expect(edit.statusCode).toBe(409);
    expect(edit.json().code).toBe('SUMMARY_APPROVED');
    const unlinked = await send();
    expect(unlinked.statusCode).toBe(409);
    expect(unlinked.json().code).toBe('CRM_NOT_LINKED');

    const workspace = await makeWorkspace(t);
    const key = await makeKey(t, workspace.workspaceId, ['messages:send', 'contacts:write']);
    expect((await api('PATCH', '/settings', clinic.admin, { crm_link: { token: key.token } })).statusCode).toBe(200);
    const noTutor = await send();
    expect(noTutor.statusCode).toBe(422);
    expect(noTutor.json().code).toBe('TUTOR_REQUIRED');
    // A name alone cannot make a contact: the CRM asks for the phone.
    const nameOnly = await send({ contact: { name: 'Lia Souza' } });
    expect(nameOnly.statusCode).toBe(422);
    expect(nameOnly.json()).toMatchObject({ code: 'TUTOR_REQUIRED', details: { field: 'contact.phone' } });
    const sent = await send({ contact: { name: 'Rui Prado', phone: '(11) 97777-2222' } });
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.json().data.status).toBe('queued');

    const unsignedNote = await thor();
    await summarise(unsignedNote);
    expect((await api('POST', `/notes/${unsignedNote}/owner_summary/approve`, clinic.editor, { approved_by: ANA })).json().code).toBe(
      'NOTE_NOT_SIGNED',
    );
    await api('PATCH', '/settings', clinic.admin, { crm_link: null });
  });
});

describe('the CRM link in the settings', () => {
  it('takes a key with messages:send, shows its workspace and prefix, never the token, and unlinks with null', async () => {
    const workspace = await makeWorkspace(t);
    const withoutScope = await makeKey(t, workspace.workspaceId, ['contacts:read']);
    const missing = await api('PATCH', '/settings', clinic.admin, { crm_link: { token: withoutScope.token } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toMatchObject({ code: 'CRM_SCOPE_MISSING', details: { required_scope: 'messages:send' } });
    for (const token of ['crm_live_not-a-key', 'hello']) {
      const invalid = await api('PATCH', '/settings', clinic.admin, { crm_link: { token } });
      expect(invalid.statusCode).toBe(422);
      expect(invalid.json().code).toBe('CRM_TOKEN_INVALID');
    }
    const revoked = await makeKey(t, workspace.workspaceId, ['messages:send']);
    await crmKeysService({ db }).revokeKey(OPERATOR, workspace.workspaceId, revoked.id);
    expect((await api('PATCH', '/settings', clinic.admin, { crm_link: { token: revoked.token } })).json().code).toBe('CRM_TOKEN_INVALID');
    // Only an administrator links.
    const key = await makeKey(t, workspace.workspaceId, ['messages:send']);
    expect((await api('PATCH', '/settings', clinic.editor, { crm_link: { token: key.token } })).statusCode).toBe(403);

    const linked = await api('PATCH', '/settings', clinic.admin, {
      crm_link: { token: key.token },
      owner_summary_template: { name: 'orientacoes_consulta', language: 'pt_BR' },
    });
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json().data).toMatchObject({
      crm_link: { workspace_id: workspace.workspaceId, workspace_name: expect.any(String), key_prefix: key.token.slice(0, 12) },
      owner_summary_template: { name: 'orientacoes_consulta', language: 'pt_BR' },
    });
    const shown = await api('GET', '/settings', clinic.viewer);
    expect(shown.json().data.crm_link.workspace_id).toBe(workspace.workspaceId);
    expect(shown.body).not.toContain(key.token);
    const [stored] = await rowsOf<{ link: string }>(
      db,
      sql`select crm_link::text as link from clinic_settings where clinic_id = ${clinic.clinicId}`,
    );
    expect(stored!.link).not.toContain(key.token.slice(12));

    const unlinked = await api('PATCH', '/settings', clinic.admin, { crm_link: null, owner_summary_template: null });
    expect(unlinked.json().data).toMatchObject({ crm_link: null, owner_summary_template: null });
  });
});

describe('tenancy', () => {
  it('sends through the clinic’s own link only; the workspace linked is the key’s, never one the body names', async () => {
    const mine = await makeWorkspace(t);
    const theirs = await makeWorkspace(t);
    const myKey = await makeKey(t, mine.workspaceId, ['messages:send', 'contacts:write']);
    const theirKey = await makeKey(t, theirs.workspaceId, ['messages:send', 'contacts:write']);
    expect((await api('PATCH', '/settings', clinic.admin, { crm_link: { token: myKey.token } })).statusCode).toBe(200);
    expect((await api('PATCH', '/settings', other.admin, { crm_link: { token: theirKey.token } })).statusCode).toBe(200);
    // A workspace cannot be named: the link is whatever workspace the key belongs to.
    const named = await api('PATCH', '/settings', clinic.admin, { crm_link: { token: theirKey.token, workspace_id: mine.workspaceId } });
    expect(named.statusCode).toBe(422);
    expect(named.json().details.field).toContain('workspace_id');

    const noteId = await thor();
    expect((await sign(noteId)).statusCode).toBe(200);
    await summarise(noteId);
    await api('POST', `/notes/${noteId}/owner_summary/approve`, clinic.editor, { approved_by: ANA });
    // The other clinic can neither read nor send this note's summary through its link.
    for (const [method, url, payload] of [
      ['GET', `/notes/${noteId}/owner_summary`, undefined],
      ['POST', `/notes/${noteId}/owner_summary/send`, {}],
      ['POST', `/notes/${noteId}/owner_summary`, {}],
    ] as const) {
      const response = await api(method, url, other.editor, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN_TENANT');
    }
    const sent = await api('POST', `/notes/${noteId}/owner_summary/send`, clinic.editor, {});
    expect(sent.statusCode, sent.body).toBe(202);
    const [contact] = await db.select().from(contacts).where(eq(contacts.id, sent.json().data.contact_id));
    expect(contact!.workspaceId).toBe(mine.workspaceId);
    const theirChats = await db
      .select()
      .from(chatMessages)
      .innerJoin(chats, eq(chats.id, chatMessages.chatId))
      .where(eq(chats.workspaceId, theirs.workspaceId));
    expect(theirChats).toEqual([]);
    // The sealed token is bound to its clinic: copied onto another clinic's settings row, it opens nothing.
    const [row] = await rowsOf<{ sealed: string }>(
      db,
      sql`select crm_link ->> 'sealed_token' as sealed from clinic_settings where clinic_id = ${clinic.clinicId}`,
    );
    await db.execute(
      sql`update clinic_settings set crm_link = jsonb_set(crm_link, '{sealed_token}', to_jsonb(${row!.sealed}::text)) where clinic_id = ${other.clinicId}`,
    );
    const otherNote = await thor(null, other);
    expect((await sign(otherNote, other.editor)).statusCode).toBe(200);
    await summarise(otherNote, {}, other.editor);
    await api('POST', `/notes/${otherNote}/owner_summary/approve`, other.editor, { approved_by: ANA });
    const copied = await api('POST', `/notes/${otherNote}/owner_summary/send`, other.editor, {
      contact: { name: 'Ivo Lima', phone: '11 97777-3333' },
    });
    expect(copied.statusCode, copied.body).toBe(409);
    expect(copied.json().code).toBe('CRM_NOT_LINKED');
    // The workspace ends the link by revoking its key: nothing more is sent through it.
    await crmKeysService({ db }).revokeKey(OPERATOR, mine.workspaceId, myKey.id);
    const revoked = await api('POST', `/notes/${noteId}/owner_summary/send`, clinic.editor, {});
    expect(revoked.statusCode).toBe(409);
    expect(revoked.json().code).toBe('CRM_NOT_LINKED');
  });
});

describe('the tutor of a note', () => {
  it('is refused with the field named when its phone is not a phone', async () => {
    for (const [tutor, field] of [
      [{ phone: 'not a phone' }, 'tutor.phone'],
      [{ name: 'Lia', email: 'lia@example.com' }, 'tutor'],
    ] as const) {
      const response = await api('POST', '/notes/live', clinic.editor, { name: 'Thor', tutor });
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json().details.field).toContain(field);
    }
    const accepted = await api('POST', '/notes/live', clinic.editor, { name: 'Thor', tutor: { name: 'Lia Souza', phone: '31 3333-4444' } });
    expect(accepted.statusCode, accepted.body).toBe(201);
  });
});

describe('erasure', () => {
  it('the CRM contact’s erasure blanks the message; the note’s erasure removes its summaries and deliveries', async () => {
    const workspace = await makeWorkspace(t);
    const key = await makeKey(t, workspace.workspaceId);
    expect((await api('PATCH', '/settings', clinic.admin, { crm_link: { token: key.token } })).statusCode).toBe(200);
    const noteId = await thor({ name: 'Zuleica Fagundes', phone: '31 98888-7777', external_id: 'tutor-zuleica' });
    expect((await sign(noteId)).statusCode).toBe(200);
    const { text } = await summarise(noteId);
    await api('POST', `/notes/${noteId}/owner_summary/approve`, clinic.editor, { approved_by: ANA });
    const sent = (await api('POST', `/notes/${noteId}/owner_summary/send`, clinic.editor, {})).json().data;

    const erased = await app.inject({
      method: 'POST',
      url: `/flow/v1/external/workspaces/${workspace.workspaceId}/contacts/${sent.contact_id}/erase`,
      headers: { authorization: `Bearer ${key.token}` },
    });
    expect(erased.statusCode, erased.body).toBe(200);
    const [message] = await db.select().from(chatMessages).where(eq(chatMessages.id, sent.message_id));
    expect(message!.body).not.toContain('Meloxicam');
    // The clinic's record keeps what it approved and sent.
    expect((await api('GET', `/notes/${noteId}/owner_summary`, clinic.viewer)).json().data.text).toBe(text);

    const deleted = await app.inject({
      method: 'DELETE',
      url: `${PREFIX}/notes/${noteId}`,
      headers: as(clinic.admin),
      payload: { reason: 'Pedido do tutor' },
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await api('GET', `/notes/${noteId}/owner_summary`, clinic.viewer)).json().code).toBe('NOTE_NOT_FOUND');
    for (const table of ['note_owner_summaries', 'note_owner_summary_deliveries']) {
      const [left] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from ${sql.raw(table)} where note_id = ${noteId}`);
      expect(left!.n, table).toBe(0);
    }
  });
});
