import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, eventually } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { registerWebhook, startReceiver } from './webhooks-receiver.ts';

// Clinic A's receiver holds every request open: each attempt waits out the whole timeout. The
// administrators' rate limit is lowered so that A can flood `/test` up to it within the test.
const TIMEOUT_MS = 20_000;
const { app, db } = await createTestApp({
  startWorkers: true,
  env: { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), RATE_LIMIT_ADMINISTRATOR_PER_MINUTE: '150' },
});
const noisy = await createClinicWithKeys(db.database, 'Clínica Barulhenta');
const quiet = await createClinicWithKeys(db.database, 'Clínica Quieta');

/** A receiver that accepts every request and never answers; counts the requests it holds at once. */
async function startHangingReceiver() {
  const held = new Set<ServerResponse>();
  let most = 0;
  let total = 0;
  const server = createServer((request, response) => {
    request.resume();
    held.add(response);
    total++;
    most = Math.max(most, held.size);
    response.on('close', () => held.delete(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  afterAll(close);
  return {
    url: (path: string) => `http://127.0.0.1:${port}/${path}`,
    stats: () => ({ held: held.size, most, total }),
    close,
  };
}

describe('webhook delivery slots shared between clinics', () => {
  it("delivers a quiet clinic's events within seconds while another floods a receiver that never answers", async () => {
    const hanging = await startHangingReceiver();
    const endpoints: string[] = [];
    for (let i = 0; i < 20; i++) endpoints.push((await registerWebhook(app, noisy.admin, hanging.url(`hook-${i}`))).id);

    // A floods its endpoints with test events up to its rate limit.
    let accepted = 0;
    for (let i = 0; ; i++) {
      const response = await app.inject({
        method: 'POST',
        url: `/notes/v1/webhooks/${endpoints[i % endpoints.length]}/test`,
        headers: as(noisy.admin),
      });
      if (response.statusCode === 429) break;
      expect(response.statusCode, response.body).toBe(202);
      accepted++;
    }
    expect(accepted).toBeGreaterThan(100);
    await eventually(async () => hanging.stats().held >= 1);

    // B's deliveries go to a healthy receiver, queued behind every one of A's.
    const healthy = await startReceiver();
    const hook = await registerWebhook(app, quiet.admin, healthy.url);
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      const response = await app.inject({ method: 'POST', url: `/notes/v1/webhooks/${hook.id}/test`, headers: as(quiet.admin) });
      expect(response.statusCode, response.body).toBe(202);
    }
    await eventually(async () => healthy.ofType('webhook.test').length >= 5, 10_000, 50);
    const waited = Date.now() - started;
    // Well inside one timeout of A's: B never waited for a slot that A's held request gave back.
    expect(waited).toBeLessThan(10_000);
    expect(waited).toBeLessThan(TIMEOUT_MS / 2);
    // A never held more than its share of this worker's slots, and none of its attempts ended yet.
    expect(hanging.stats().most).toBeLessThanOrEqual(2);
    expect(hanging.stats().total).toBe(hanging.stats().most);
    await hanging.close();
  });
});
