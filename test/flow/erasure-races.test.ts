import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eq, sql } from '../../src/platform/db/drizzle.ts';
import { chatMessages, contactPets } from '../../src/platform/db/schema/index.ts';
import { generateSigningSecret } from '../../src/platform/webhook-signature.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, loginCookie, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { raceBehindLock, waitForLockWaiters } from '../helpers/database.ts';

// Writes that meet a contact's erasure: the erasure wins, or the other write fails. Each race is
// made to happen: the survey provider erases the contact while it "sends"; the pet waits behind the
// erasure's lock of the contact.

/** What the fake messaging gateway does while a message is being sent; it answers afterwards. */
let whileSending: () => Promise<void> = async () => {};
const secret = generateSigningSecret();
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    void whileSending().then(() =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'gw-after-erasure' })),
    );
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const t = await createTestApp({
  env: {
    ...CRM_TEST_ENV,
    MESSAGING_PROVIDER: 'webhook',
    MESSAGING_WEBHOOK_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/messages`,
    MESSAGING_WEBHOOK_SECRET: secret,
    MESSAGING_RETRY_DELAY_SECONDS: '1',
  },
  startWorkers: true,
});
const { app } = t;
const db = t.db.database.db;

async function fixture() {
  const ws = await makeWorkspace(t);
  const key = await makeKey(t, ws.workspaceId);
  const cookie = await loginCookie(app, ws.admin.email, ws.admin.password);
  const W = `/flow/v1/api/workspaces/${ws.workspaceId}`;
  const crm = (method: 'POST' | 'PUT', path: string, payload: object) =>
    app.inject({ method, url: `${W}${path}`, headers: { cookie }, payload });
  const external = (method: 'POST' | 'PUT', path: string, payload?: object) =>
    app.inject({
      method,
      url: `/flow/v1/external/workspaces/${ws.workspaceId}${path}`,
      headers: { authorization: `Bearer ${key.token}` },
      ...(payload ? { payload } : {}),
    });
  const externalId = `race-${Math.random().toString(36).slice(2, 8)}`;
  const created = await external('PUT', '/contacts', {
    external_id: externalId,
    name: 'Lia Raça',
    phone: `31 9${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
  });
  expect(created.statusCode, created.body).toBeLessThan(300);
  const contactId = created.json().contact.id as string;
  const erase = () => external('POST', `/contacts/${contactId}/erase`);
  return { ws, crm, external, externalId, contactId, erase };
}

describe('a contact erasure racing other writes', () => {
  it('leaves no provider id on a survey message whose send was answered after the contact was erased', async () => {
    const f = await fixture();
    const stage = (await f.crm('POST', '/pipeline-stages', { name: 'Pesquisa', position: 1 })).json();
    await f.crm('POST', '/leads', { contact_id: f.contactId, stage_id: stage.id });
    await f.crm('POST', '/chats', { contact_id: f.contactId, channel: 'whatsapp' });
    await f.crm('PUT', '/survey-config', { enabled: true, survey_stage_id: stage.id });
    let erased = false;
    // The gateway has the message; before it answers, the contact is erased.
    whileSending = async () => {
      const answer = await f.erase();
      expect(answer.statusCode, answer.body).toBe(200);
      erased = true;
    };
    const trigger = await f.external('POST', '/satisfaction-surveys', { external_id: f.externalId });
    expect(trigger.json()).toMatchObject({ triggered: true });
    await eventually(async () => erased, 60_000, 100);
    // The job's write-back has run once its job is no longer active.
    await eventually(
      async () => {
        const result = (await db.execute(
          sql`select count(*)::int as n from pgboss.job where name = 'flow.survey-message' and state in ('created', 'retry', 'active')`,
        )) as unknown as { rows: { n: number }[] };
        return result.rows[0]!.n === 0;
      },
      60_000,
      100,
    );
    const messages = await db
      .select()
      .from(chatMessages)
      .where(eq(chatMessages.chatId, sql`(select id from chats where contact_id = ${f.contactId})`));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ body: '[erased]', providerMessageId: null, reason: null });
    expect(messages[0]!.status).not.toBe('sent');
  }, 120_000);

  it.skipIf(!t.db.url)(
    'refuses a pet added to a contact while its erasure runs (404 CONTACT_NOT_FOUND), leaving no pet name',
    async () => {
      const f = await fixture();
      const cookie = await loginCookie(app, f.ws.admin.email, f.ws.admin.password);
      const observer = new pg.Client({ connectionString: t.db.url });
      await observer.connect();
      try {
        const [erasure, pet] = await raceBehindLock(
          t.db.url!,
          'select 1 from contacts where id = $1 for update',
          [f.contactId],
          2,
          async () => {
            // The erasure queues for the contact's row first, the pet second.
            const erasure = f.erase();
            await waitForLockWaiters(observer, 1);
            const pet = app.inject({
              method: 'POST',
              url: `/flow/v1/api/workspaces/${f.ws.workspaceId}/contacts/${f.contactId}/pets`,
              headers: { cookie },
              payload: { name: 'Rex Segredo', species: 'dog' },
            });
            return Promise.all([erasure, pet]);
          },
        );
        expect(erasure.statusCode, erasure.body).toBe(200);
        expect(pet.statusCode, pet.body).toBe(404);
        expect(pet.json()).toMatchObject({ code: 'CONTACT_NOT_FOUND' });
        const pets = await db.select().from(contactPets).where(eq(contactPets.contactId, f.contactId));
        expect(pets.map((row) => row.name)).not.toContain('Rex Segredo');
      } finally {
        await observer.end();
      }
    },
    60_000,
  );
});
