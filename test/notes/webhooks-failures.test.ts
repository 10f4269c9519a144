import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, eventually } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { registerWebhook, startReceiver } from './webhooks-receiver.ts';

// Two retries 1 s apart (±20 % jitter): a retryable failure is attempted 3 times in ~3 s, then
// `failed`. A 1 s timeout keeps the hanging receiver quick while leaving loopback answers (and an
// event loop shared with the embedded database) plenty of room.
const TIMEOUT_MS = 1_000;
const { app, db } = await createTestApp({
  startWorkers: true,
  env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
});
const clinic = await createClinicWithKeys(db.database);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Delivery {
  id: string;
  event_id: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
}

const register = (url: string) => registerWebhook(app, clinic.admin, url);

async function sendTest(hookId: string) {
  const response = await app.inject({ method: 'POST', url: `/notes/v1/webhooks/${hookId}/test`, headers: as(clinic.admin) });
  expect(response.statusCode, response.body).toBe(202);
  return response.json().data as { id: string; event_id: string };
}

async function delivery(hookId: string, id: string): Promise<Delivery> {
  const response = await app.inject({ method: 'GET', url: `/notes/v1/webhooks/${hookId}/deliveries?limit=50`, headers: as(clinic.admin) });
  expect(response.statusCode, response.body).toBe(200);
  const row = (response.json().data as Delivery[]).find((entry) => entry.id === id);
  if (!row) throw new Error(`delivery ${id} not listed`);
  return row;
}

/** Polls the delivery log until the delivery is final, keeping every state seen on the way. */
/** Attempts that were retries on the 1 s schedule, not sent back to back. */
function expectRetrySpacing(times: number[]) {
  for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!, `gap before attempt ${i + 1}`).toBeGreaterThanOrEqual(700);
}

async function settle(hookId: string, id: string, timeoutMs = 15_000) {
  const seen: Delivery[] = [];
  const final = await eventually(
    async () => {
      const row = await delivery(hookId, id);
      seen.push(row);
      return row.status === 'failed' || row.status === 'delivered' ? row : undefined;
    },
    timeoutMs,
    50,
  );
  return { final, seen };
}

interface RawRequest {
  headers: IncomingHttpHeaders;
  at: number;
  /** When the sender closed the connection (agent: false, so one connection per attempt). */
  closedAt?: number;
}

/**
 * A receiver whose answer is written by hand (headers, streaming, or no answer at all), which
 * startReceiver cannot express. Records each request once its body is in, and when its connection closed.
 */
async function startRawReceiver(answer: (response: ServerResponse, request: IncomingMessage) => void) {
  const received: RawRequest[] = [];
  const server = createServer((request, response) => {
    // The sender hangs up mid-answer on purpose; a write after that must not crash the test process.
    response.on('error', () => {});
    request.socket.on('error', () => {});
    request.resume();
    request.on('end', () => {
      const entry: RawRequest = { headers: request.headers, at: Date.now() };
      received.push(entry);
      request.socket.once('close', () => {
        entry.closedAt = Date.now();
      });
      answer(response, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${port}/hooks`, received };
}

describe('delivery failures', () => {
  it('retries a receiver answering 429, like a 5xx, counting every attempt', async () => {
    const receiver = await startReceiver(() => 429);
    const hook = await register(receiver.url);
    const sent = await sendTest(hook.id);
    const { final, seen } = await settle(hook.id, sent.id);

    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((entry) => entry.headers['webhook-id']))).toEqual(new Set([sent.event_id]));
    // Each failed attempt went back to `pending` with its next attempt due, not straight to `failed`:
    // the attempts are spaced by the schedule (1 s ± 20 %), and the log, when the poll caught it
    // between attempts (a loaded machine may not), says why.
    expectRetrySpacing(receiver.received.map((request) => request.at));
    for (const waiting of seen.filter((row) => row.status === 'pending' && row.attempts > 0)) {
      expect(waiting).toMatchObject({ last_status_code: 429, last_error: 'HTTP 429: receiver says no' });
      expect(Date.parse(waiting.next_attempt_at ?? '')).not.toBeNaN();
    }
    const attemptsSeen = seen.map((row) => row.attempts);
    expect(attemptsSeen).toEqual([...attemptsSeen].sort((a, b) => a - b));
    expect(final).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 429, next_attempt_at: null });
  });

  it('records a receiver that never answers as a timeout and retries it', async () => {
    const receiver = await startRawReceiver(() => {}); // holds the connection, never answers
    const hook = await register(receiver.url);
    const sent = await sendTest(hook.id);
    const { final, seen } = await settle(hook.id, sent.id);

    expect(receiver.received).toHaveLength(3);
    expectRetrySpacing(receiver.received.map((request) => request.at));
    for (const waiting of seen.filter((row) => row.status === 'pending' && row.attempts > 0)) {
      expect(waiting).toMatchObject({ last_status_code: null, last_error: `timeout: no answer within ${TIMEOUT_MS} ms` });
      expect(waiting.next_attempt_at).not.toBeNull();
    }
    expect(final).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_status_code: null,
      last_error: `timeout: no answer within ${TIMEOUT_MS} ms`,
      next_attempt_at: null,
    });
    // The sender gave up on each connection after about the timeout. Its clock starts before it
    // connects, so the receiver sees a little less; the lower bound only rules out giving up early.
    for (const entry of receiver.received) {
      // The row says `failed` as soon as the sender aborts; the receiver's close event for that
      // socket may arrive a few ticks later on a loaded machine.
      await eventually(async () => entry.closedAt !== undefined, 2_000).catch(() => undefined);
      expect(entry.closedAt, 'connection closed by the sender').toBeDefined();
      const held = (entry.closedAt ?? 0) - entry.at;
      expect(held).toBeGreaterThanOrEqual(TIMEOUT_MS / 2);
      expect(held).toBeLessThan(TIMEOUT_MS + 2_000);
    }
  });

  it('stops after the last retry of the schedule: 3 attempts, then failed for good', async () => {
    const receiver = await startReceiver(() => 500);
    const hook = await register(receiver.url);
    const sent = await sendTest(hook.id);
    const { final } = await settle(hook.id, sent.id);

    expect(final).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_status_code: 500,
      last_error: 'HTTP 500: receiver says no',
      next_attempt_at: null,
    });
    expect(receiver.received).toHaveLength(3);
    // Retries waited for their schedule (1 s -20 % at least), they did not fire back to back.
    const gaps = receiver.received.slice(1).map((entry, index) => entry.at - (receiver.received[index]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(700);
    // Longer than one more scheduled delay plus job polling: nothing else arrives.
    await sleep(3_000);
    expect(receiver.received).toHaveLength(3);
    expect(await delivery(hook.id, sent.id)).toMatchObject({ status: 'failed', attempts: 3, next_attempt_at: null });
  });

  it('reads only the start of a huge answer: the attempt does not wait for it, and the log keeps a short excerpt', async () => {
    const line = 'upstream overloaded, retry later; '; // 34 characters
    const chunk = Buffer.from(line.repeat(Math.ceil(65_536 / line.length)));
    const total = 5 * 1024 * 1024;
    // 5 MB, 64 KB at once then 64 KB every 50 ms: about 4 s to send it all, far beyond the timeout.
    const receiver = await startRawReceiver((response) => {
      response.writeHead(500, { 'content-type': 'text/plain', 'content-length': String(total) });
      let sent = 0;
      const next = () => {
        if (response.destroyed || sent >= total) return;
        const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += piece.length;
        response.write(piece);
        if (sent < total) setTimeout(next, 50);
        else response.end();
      };
      next();
    });
    const hook = await register(receiver.url);
    const sent = await sendTest(hook.id);
    const first = await eventually(async () => {
      const row = await delivery(hook.id, sent.id);
      return row.attempts >= 1 && row.status !== 'delivering' ? row : undefined;
    });

    // The status decides; not a timeout even though the body never finished within it.
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });
    expect(first.last_error).toBe(`HTTP 500: ${chunk.toString('utf8').slice(0, 200)}`);
    // The sender hung up as soon as it had read enough, well before the timeout would have fired
    // (the receiver may see the socket close just after the attempt is recorded: waited for).
    const attempt = await eventually(async () => (receiver.received[0]?.closedAt ? receiver.received[0] : undefined));
    expect(attempt?.closedAt).toBeDefined();
    expect((attempt?.closedAt ?? 0) - (attempt?.at ?? 0)).toBeLessThan(TIMEOUT_MS / 2);
    const { final } = await settle(hook.id, sent.id);
    expect(final).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 500 });
    expect(final.last_error?.length).toBeLessThanOrEqual('HTTP 500: '.length + 200);
  });

  it('does not follow a redirect and fails a 3xx answer at once, without retry', async () => {
    const target = await startReceiver();
    const redirects = await Promise.all(
      [301, 302, 307, 308].map(async (code) => {
        const receiver = await startRawReceiver((response) => {
          response.writeHead(code, { location: target.url, 'content-type': 'text/plain' }).end('moved');
        });
        const hook = await register(receiver.url);
        return { code, receiver, hook, sent: await sendTest(hook.id) };
      }),
    );
    for (const { code, hook, sent } of redirects) {
      const { final } = await settle(hook.id, sent.id);
      expect(final, `HTTP ${code}`).toMatchObject({
        status: 'failed',
        attempts: 1,
        last_status_code: code,
        last_error: `HTTP ${code}: moved`,
        next_attempt_at: null,
      });
    }
    // Past the first retry's latest due time (1.2 s) plus job polling: still one request each.
    await sleep(2_000);
    for (const { code, receiver } of redirects) expect(receiver.received, `HTTP ${code}`).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });
});
