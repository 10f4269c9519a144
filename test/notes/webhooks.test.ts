import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { raceBehindLock } from '../helpers/database.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote } from '../helpers/uploads.ts';
import { startReceiver } from './webhooks-receiver.ts';

// Retry delays shortened to 1, 3 and 6 s (±20 % jitter) so growing delays are observable.
const { app, db, logs } = await createTestApp({
  startWorkers: true,
  env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,3,6', LOG_LEVEL: 'trace' },
});
const clinic = await createClinicWithKeys(db.database);
const secrets: string[] = [];

async function register(url: string, events = ['note.completed', 'note.failed'], key = clinic.admin) {
  const response = await app.inject({
    method: 'POST',
    url: '/notes/v1/webhooks',
    headers: as(key),
    payload: { url, events, description: 'ERP' },
  });
  expect(response.statusCode, response.body).toBe(201);
  const data = response.json() as { id: string; secret: string };
  secrets.push(data.secret);
  return data;
}

const upload = (name: string) => uploadNote(app, clinic.editor, { name, external_id: `erp-${name}` });

async function sendTest(id: string) {
  const response = await app.inject({ method: 'POST', url: `/notes/v1/webhooks/${id}/test`, headers: as(clinic.admin) });
  expect(response.statusCode, response.body).toBe(202);
  return response.json().data as { id: string; event_id: string; status: string };
}

async function deliveries(id: string) {
  const response = await app.inject({ method: 'GET', url: `/notes/v1/webhooks/${id}/deliveries?limit=50`, headers: as(clinic.admin) });
  expect(response.statusCode).toBe(200);
  return response.json() as { data: Record<string, any>[]; meta: Record<string, number> };
}

function verify(secret: string, entry: { headers: Record<string, unknown>; body: string }) {
  return new Webhook(secret).verify(entry.body, entry.headers as Record<string, string>) as {
    type: string;
    timestamp: string;
    data: Record<string, any>;
  };
}

describe('webhook endpoints', () => {
  it('register answers 201 with the bare endpoint and its secret once; reads never show it', async () => {
    const created = await register('http://127.0.0.1:9/hooks');
    // Documented bare (docs/webhooks.md): `{id, url, events, enabled, secret}`, not enveloped.
    expect(created).not.toHaveProperty('data');
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'http://127.0.0.1:9/hooks',
      events: ['note.completed', 'note.failed'],
      enabled: true,
      description: 'ERP',
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const one = await app.inject({ method: 'GET', url: `/notes/v1/webhooks/${created.id}`, headers: as(clinic.admin) });
    expect(one.statusCode).toBe(200);
    expect(one.body).not.toContain(created.secret);
    expect(one.json().data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const list = await app.inject({ method: 'GET', url: '/notes/v1/webhooks', headers: as(clinic.admin) });
    expect(list.json().data.map((hook: { id: string }) => hook.id)).toContain(created.id);
    expect(list.body).not.toContain('whsec_');

    const patched = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/webhooks/${created.id}`,
      headers: as(clinic.admin),
      payload: { events: ['note.failed'] },
    });
    expect(patched.json().data.events).toEqual(['note.failed']);
    const removed = await app.inject({ method: 'DELETE', url: `/notes/v1/webhooks/${created.id}`, headers: as(clinic.admin) });
    expect(removed.statusCode).toBe(200);
    const gone = await app.inject({ method: 'GET', url: `/notes/v1/webhooks/${created.id}`, headers: as(clinic.admin) });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('WEBHOOK_NOT_FOUND');
  });

  it('validates the body and refuses another clinic', async () => {
    for (const payload of [
      { url: 'ftp://x.example/h', events: ['note.completed'] },
      { url: 'http://127.0.0.1/h', events: ['note.exploded'] },
      { url: 'http://127.0.0.1/h', events: [] },
    ]) {
      const response = await app.inject({ method: 'POST', url: '/notes/v1/webhooks', headers: as(clinic.admin), payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(response.json().details.field).toMatch(/url|events/);
    }
    const mine = await register('http://127.0.0.1:9/other');
    const other = await createClinicWithKeys(db.database, 'Outra');
    for (const [method, url] of [
      ['GET', `/notes/v1/webhooks/${mine.id}`],
      ['DELETE', `/notes/v1/webhooks/${mine.id}`],
      ['POST', `/notes/v1/webhooks/${mine.id}/test`],
      ['GET', `/notes/v1/webhooks/${mine.id}/deliveries`],
    ] as const) {
      const response = await app.inject({ method, url, headers: as(other.admin) });
      expect(response.statusCode, url).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN_TENANT');
    }
    await app.inject({ method: 'DELETE', url: `/notes/v1/webhooks/${mine.id}`, headers: as(clinic.admin) });
  });
});

describe('deliveries', () => {
  it('sends a verifiable note.completed and note.failed, with what a receiver needs and never the audio', async () => {
    const receiver = await startReceiver();
    const onlyFailures = await startReceiver();
    const hook = await register(receiver.url);
    await register(onlyFailures.url, ['note.failed']);
    const completedId = await upload('Thor');
    const failedId = await upload('FAIL');
    await eventually(async () => receiver.received.length >= 2 && onlyFailures.received.length >= 1, 20_000);

    const completed = receiver.ofType('note.completed')[0];
    const failed = receiver.ofType('note.failed')[0];
    if (!completed || !failed) throw new Error('missing events');
    const payload = verify(hook.secret, completed);
    expect(payload.type).toBe('note.completed');
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(payload.data).toMatchObject({ note_id: completedId, transcription_status: 'completed', external_id: 'erp-Thor', name: 'Thor' });
    expect(payload.data.transcription_url).toContain(`/notes/v1/notes/${completedId}/transcription`);
    expect(payload.data.note_sections.length).toBeGreaterThan(0);
    // The sandbox's made-up consultation says so in the payload too.
    expect(payload.data).toMatchObject({ simulated: true, review_flags: [expect.objectContaining({ reason: 'simulated_transcript' })] });
    expect(completed.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(completed.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(completed.body).not.toMatch(/audio_key|base64/);

    expect(verify(hook.secret, failed).data).toMatchObject({
      note_id: failedId,
      transcription_status: 'failed',
      failure: { code: 'SANDBOX_FORCED_FAILURE' },
    });
    expect(onlyFailures.ofType('note.completed')).toHaveLength(0);
    expect(() => new Webhook(secrets.at(-1) ?? '').verify(completed.body, completed.headers as Record<string, string>)).toThrow();

    // The receiver has the events before the worker has read its answers and written them down.
    const log = await eventually(async () => {
      const read = await deliveries(hook.id);
      return read.data.every((delivery) => delivery.status !== 'delivering') ? read : null;
    });
    expect(log.meta).toMatchObject({ total: 2, page: 1 });
    expect(log.data[0]).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(log.data[0]?.delivered_at).toMatch(/Z$/);
  });

  it('retries 500s with growing delays, then delivers; the webhook-id stays the same', async () => {
    const receiver = await startReceiver((_request, index) => (index < 3 ? 500 : 200));
    const hook = await register(receiver.url);
    const delivery = await sendTest(hook.id);
    await eventually(async () => receiver.received.length >= 4, 25_000, 100);
    const gaps = receiver.received.slice(1).map((entry, index) => entry.at - (receiver.received[index]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(700);
    expect(gaps[1]).toBeGreaterThan(gaps[0] ?? 0);
    expect(gaps[2]).toBeGreaterThan(gaps[1] ?? 0);
    expect(new Set(receiver.received.map((entry) => entry.headers['webhook-id']))).toEqual(new Set([delivery.event_id]));
    for (const entry of receiver.received) expect(verify(hook.secret, entry).type).toBe('webhook.test');
    const [row] = (
      await eventually(async () => ((await deliveries(hook.id)).data[0]?.status === 'delivered' ? deliveries(hook.id) : undefined))
    ).data;
    expect(row).toMatchObject({ id: delivery.id, event: 'webhook.test', attempts: 4, last_status_code: 200, status: 'delivered' });
  }, 40_000);

  it('stops at a 4xx other than 429, and redelivers on request with the same webhook-id', async () => {
    let answer = 410;
    const receiver = await startReceiver(() => answer);
    const hook = await register(receiver.url);
    const delivery = await sendTest(hook.id);
    const failed = await eventually(async () => (await deliveries(hook.id)).data.find((row) => row.status === 'failed'));
    expect(failed).toMatchObject({ attempts: 1, last_status_code: 410, next_attempt_at: null });
    expect(failed.last_error).toContain('HTTP 410');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).toHaveLength(1);

    answer = 204;
    const again = await app.inject({
      method: 'POST',
      url: `/notes/v1/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`,
      headers: as(clinic.admin),
    });
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json().data).toMatchObject({ event_id: delivery.event_id, status: 'pending' });
    await eventually(async () => receiver.received.length === 2);
    expect(receiver.received[1]?.headers['webhook-id']).toBe(delivery.event_id);
  });

  it('sends one delivery even when its job runs several times at once', async () => {
    const receiver = await startReceiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return 200;
    });
    const hook = await register(receiver.url);
    const delivery = await sendTest(hook.id);
    const stub = { name: 'notes.webhook-deliver', payload: { parse: (value: unknown) => value } as never, handle: async () => {} };
    await Promise.all([1, 2, 3].map(() => app.vetflow.jobs.send(stub, { deliveryId: delivery.id })));
    await eventually(async () => (await deliveries(hook.id)).data[0]?.status === 'delivered');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).toHaveLength(1);
  });

  it('sends nothing to a disabled endpoint; one failing for 3 days is disabled and gets no further event', async () => {
    const witness = await startReceiver();
    await register(witness.url);
    const manual = await startReceiver();
    const manualHook = await register(manual.url);
    const off = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/webhooks/${manualHook.id}`,
      headers: as(clinic.admin),
      payload: { enabled: false },
    });
    expect(off.json().data).toMatchObject({ enabled: false, disabled_reason: 'manual' });
    const test = await app.inject({ method: 'POST', url: `/notes/v1/webhooks/${manualHook.id}/test`, headers: as(clinic.admin) });
    expect(test.statusCode).toBe(422);
    expect(test.json().code).toBe('WEBHOOK_DISABLED');

    const failing = await startReceiver(() => 503);
    const failingHook = await register(failing.url);
    await db.database.db.execute(
      sql`update webhook_endpoints set failing_since = now() - interval '73 hours' where id = ${failingHook.id}`,
    );
    await upload('Bob');
    await eventually(async () => witness.received.length >= 1 && failing.received.length >= 1, 20_000);
    const disabled = await eventually(async () => {
      const hook = (await app.inject({ method: 'GET', url: `/notes/v1/webhooks/${failingHook.id}`, headers: as(clinic.admin) })).json()
        .data;
      return hook.enabled ? undefined : hook;
    });
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    await upload('Nina');
    await eventually(async () => witness.received.length >= 2, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(manual.received).toHaveLength(0);
    expect(failing.received).toHaveLength(1);
    const pending = (await deliveries(failingHook.id)).data.find((row) => row.status === 'pending');
    expect(pending).toBeUndefined();
  }, 40_000);

  it('signs with both secrets during the overlap after a rotation', async () => {
    const receiver = await startReceiver();
    const hook = await register(receiver.url);
    const rotated = await app.inject({ method: 'POST', url: `/notes/v1/webhooks/${hook.id}/rotate-secret`, headers: as(clinic.admin) });
    expect(rotated.statusCode).toBe(200);
    const { secret, previous_secret_expires_at: until } = rotated.json().data;
    secrets.push(secret);
    expect(secret).not.toBe(hook.secret);
    expect(new Date(until).getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    await sendTest(hook.id);
    await eventually(async () => receiver.received.length >= 1);
    const entry = receiver.received[0];
    if (!entry) throw new Error('nothing received');
    expect(String(entry.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(secret, entry).type).toBe('webhook.test');
    expect(verify(hook.secret, entry).type).toBe('webhook.test');

    // Once the overlap is over only the new secret signs.
    await db.database.db.execute(
      sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ${hook.id}`,
    );
    await sendTest(hook.id);
    await eventually(async () => receiver.received.length >= 2);
    const later = receiver.received[1];
    if (!later) throw new Error('nothing received');
    expect(verify(secret, later).type).toBe('webhook.test');
    expect(() => verify(hook.secret, later)).toThrow();
  });

  it.runIf(db.url !== undefined)(
    'keeps both secrets of two rotations at once: the later one signs, the earlier one still verifies',
    async () => {
      const receiver = await startReceiver();
      const hook = await register(receiver.url);
      const rotate = () => app.inject({ method: 'POST', url: `/notes/v1/webhooks/${hook.id}/rotate-secret`, headers: as(clinic.admin) });
      // Both rotations read the endpoint, then wait on its row (held here) to write: the moment where
      // each used to keep the secret it had read as the previous one, so the first's was lost.
      const answers = await raceBehindLock(db.url!, 'select 1 from webhook_endpoints where id = $1 for update', [hook.id], 2, () =>
        Promise.all([rotate(), rotate()]),
      );
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
      const handedOut = answers.map((answer) => answer.json().data.secret as string);
      secrets.push(...handedOut);
      await sendTest(hook.id);
      await eventually(async () => receiver.received.length >= 1);
      const entry = receiver.received[0];
      if (!entry) throw new Error('nothing received');
      // Each secret handed out verifies: one is the current secret, the other the previous one.
      for (const secret of handedOut) expect(verify(secret, entry).type).toBe('webhook.test');
      expect(() => verify(hook.secret, entry)).toThrow();
    },
  );
});

describe('retention', () => {
  it('deletes settled events older than WEBHOOK_RETENTION_DAYS with their deliveries, keeps what is still to be sent', async () => {
    const up = await startReceiver();
    const down = await startReceiver(() => 503);
    const delivered = await register(up.url);
    const retrying = await register(down.url);
    const settled = await sendTest(delivered.id);
    const unsettled = await sendTest(retrying.id);
    await eventually(async () => (await deliveries(delivered.id)).data[0]?.status === 'delivered' && down.received.length >= 1);
    await db.database.db.execute(
      sql`update webhook_events set created_at = now() - interval '31 days' where id in (${settled.event_id}, ${unsettled.event_id})`,
    );
    // The retention run the app registered (jobs are matched by name); cron runs it daily.
    await app.vetflow.jobs.send(app.vetflow.jobs.definition('retention'), {});
    await eventually(async () => (await deliveries(delivered.id)).meta.total === 0);
    // Still being retried (the first retry is ~1 s away, the last ~10 s): kept.
    expect((await deliveries(retrying.id)).data.map((delivery) => delivery.event_id)).toEqual([unsettled.event_id]);
  });
});

describe('signing secrets', () => {
  it('never appear in logs or in the database', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    const tables = await db.database.db.execute(sql`select string_agg(t::text, ' ') as dump from webhook_endpoints t`);
    const dump = String((tables as unknown as { rows: { dump: string }[] }).rows[0]?.dump);
    expect(dump).toContain('v2.'); // sealed, with the id of the key that sealed it
    const logText = logs.join('\n');
    expect(logText).toContain('webhook delivery attempt');
    for (const secret of secrets) {
      expect(dump).not.toContain(secret.slice(6));
      expect(logText).not.toContain(secret.slice(6));
    }
  });
});
