import path from 'node:path';
import { expect, it } from 'vitest';
import { CRM_SCOPES } from '../../src/flow/keys/scopes.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { dumpDatabase } from '../helpers/dump.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { filesUnder, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// The tutor's erasure request as a new user meets it (docs/privacy.md, "One tutor, answered with two
// calls"): the tutor is a CRM contact with a pet and a satisfaction survey, and the owner of a patient
// with three consultation notes, one of them signed. Two calls — the CRM erasure and the Notes
// erasure — and nothing of the person is left in the database (every table, pg-boss's too) or the
// audio storage.

const t = await createTestApp({ env: CRM_TEST_ENV, startWorkers: true });
const { app } = t;
const db = t.db.database.db;
const home = await makeWorkspace(t);
const key = await makeKey(t, home.workspaceId, CRM_SCOPES);
const cookie = await loginCookie(app, home.admin.email, home.admin.password);
const clinic = await createClinicWithKeys(t.db.database);

const TUTOR = {
  name: 'Zenaide Canarinho Prates',
  phone: '11 97654-3210',
  email: 'zenaide.canario@example.org',
  document: '390.533.447-05',
  externalId: 'TUTOR-ZCP-0077',
  pet: 'Fumaca Canarinho',
  reason: 'retorno de Fumaca Canarinho',
};
// The phone is stored in E.164 (+5511976543210), which holds these digits.
const needles = [TUTOR.name, '976543210', TUTOR.email, TUTOR.document, TUTOR.externalId, TUTOR.pet];

const W = `/flow/v1/external/workspaces/${home.workspaceId}`;
const ext = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
  app.inject({ method, url: `${W}${url}`, headers: { authorization: `Bearer ${key.token}` }, ...(payload ? { payload } : {}) });
const crm = (method: 'POST' | 'PUT', url: string, payload: object) =>
  app.inject({ method, url: `/flow/v1/api/workspaces/${home.workspaceId}${url}`, headers: { cookie }, payload });
const notes = (method: 'GET' | 'POST', url: string, apiKey: string, payload?: object) =>
  app.inject({ method, url: `/notes/v1${url}`, headers: { 'x-api-key': apiKey }, ...(payload ? { payload } : {}) });

it('a tutor with a CRM contact, a pet, a survey and three notes (one signed) is erased with two calls', { timeout: 120_000 }, async () => {
  // The CRM side: the contact, its pet, and a survey sent to it.
  const created = await ext('PUT', '/contacts', {
    external_id: TUTOR.externalId,
    document: TUTOR.document,
    name: TUTOR.name,
    phone: TUTOR.phone,
    email: TUTOR.email,
  });
  expect(created.statusCode, created.body).toBe(201);
  const contactId: string = created.json().contact.id;
  expect((await crm('POST', `/contacts/${contactId}/pets`, { name: TUTOR.pet, species: 'dog' })).statusCode).toBe(201);
  const stage = (await crm('POST', '/pipeline-stages', { name: 'Pós-consulta', position: 1 })).json();
  expect((await crm('POST', '/leads', { contact_id: contactId, stage_id: stage.id })).statusCode).toBe(201);
  expect((await crm('POST', '/chats', { contact_id: contactId })).statusCode).toBe(201);
  expect((await crm('PUT', '/survey-config', { enabled: true, survey_stage_id: stage.id })).statusCode).toBe(200);
  expect((await ext('POST', '/satisfaction-surveys', { phone: TUTOR.phone, reason: TUTOR.reason })).json()).toMatchObject({
    triggered: true,
  });
  await eventually(async () => (await ext('GET', `/contacts/${contactId}/export`)).json().surveys?.[0]?.status === 'sent');

  // The Notes side: three consultations of the tutor's dog, filed under the tutor's id; one signed.
  const ids: string[] = [];
  for (const _ of [1, 2, 3]) {
    ids.push(
      await uploadNote(app, clinic.editor, {
        name: TUTOR.pet,
        external_id: TUTOR.externalId,
        metadata: [{ key: 'tutor', value: TUTOR.name }],
      }),
    );
  }
  for (const id of ids) expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('completed');
  const signed = await notes('POST', `/notes/${ids[0]}/sign`, clinic.editor, {
    signed_by: { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' },
    acknowledge_flags: true,
  });
  expect(signed.statusCode, signed.body).toBe(200);
  const audioDir = path.join(t.config.DATA_DIR, 'audio');
  expect(filesUnder(audioDir).filter((file) => ids.some((id) => file.includes(id)))).toHaveLength(3);
  const before = await dumpDatabase(db);
  for (const needle of needles) expect(before, needle).toContain(needle);

  // Call 1: the CRM erasure. Call 2: the Notes erasure.
  expect((await ext('POST', `/contacts/${contactId}/erase`)).statusCode).toBe(200);
  const erased = await notes('POST', '/erasures', clinic.admin, {
    external_id: TUTOR.externalId,
    reason: 'Pedido do titular (LGPD art. 18)',
  });
  expect(erased.statusCode, erased.body).toBe(200);
  expect(erased.json().data.notes_deleted).toBe(3);

  const after = await dumpDatabase(db);
  expect(needles.filter((needle) => after.includes(needle))).toEqual([]);
  expect(filesUnder(audioDir).filter((file) => ids.some((id) => file.includes(id)))).toEqual([]);
  expect((await ext('GET', `/contacts/${contactId}`)).statusCode).toBe(404);
  for (const id of ids) expect((await notes('GET', `/notes/${id}`, clinic.admin)).statusCode).toBe(404);
});
