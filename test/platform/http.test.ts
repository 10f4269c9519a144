import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { AppError } from '../../src/platform/errors.ts';
import { createTestApp, testEnv } from '../helpers/app.ts';

const { app, db, logs } = await createTestApp();
const { app: closable } = await createTestApp();

// Routes that exist only in this test, to drive the shared error handling and request plumbing (public:
// every route declares its access).
app.post(
  '/test/echo/:id',
  { config: { access: 'public' }, schema: { params: z.object({ id: z.uuid() }), body: z.object({ name: z.string().min(1).max(5) }) } },
  async (request) => ({ id: request.params.id, name: request.body.name }),
);
app.get('/test/boom', { config: { access: 'public' } }, async () => {
  throw new Error('connection to 10.0.0.5 failed: password authentication failed for user admin');
});
app.get('/test/app-error', { config: { access: 'public' } }, async () => {
  throw new AppError('NOTE_NOT_FOUND', 'Note not found', { note_id: 'x' });
});

const VALID_ID = '6f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10';

function expectErrorBody(body: Record<string, unknown>, error: string, code: string) {
  expect(body).toMatchObject({ error, code });
  expect(typeof body.message).toBe('string');
  expect(typeof body.request_id).toBe('string');
  expect(Object.keys(body).every((key) => ['error', 'message', 'code', 'details', 'request_id'].includes(key))).toBe(true);
}

describe('request ids', () => {
  it('generates one and echoes it', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("honours the caller's X-Request-Id, in the header and in error bodies", async () => {
    const response = await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'erp-42.abc' } });
    expect(response.headers['x-request-id']).toBe('erp-42.abc');
    expect(response.json().request_id).toBe('erp-42.abc');
  });

  it('replaces an X-Request-Id that could forge log lines', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a\u0000b"}{' } });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the flat error body', () => {
  it('answers unknown routes with 404 ROUTE_NOT_FOUND', async () => {
    const response = await app.inject({ method: 'GET', url: '/notes/v1/does-not-exist' });
    expect(response.statusCode).toBe(404);
    expectErrorBody(response.json(), 'not_found', 'ROUTE_NOT_FOUND');
  });

  it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/test/echo/${VALID_ID}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "ab',
    });
    expect(response.statusCode).toBe(400);
    expectErrorBody(response.json(), 'bad_request', 'MALFORMED_JSON');
  });

  it('answers a wrong content type with 415', async () => {
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const response = await app.inject({
        method: 'POST',
        url: `/test/echo/${VALID_ID}`,
        headers: { 'content-type': type },
        payload: 'name=a',
      });
      expect(response.statusCode, type).toBe(415);
      expectErrorBody(response.json(), 'unsupported_media_type', 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('answers a body that breaks its schema with 422 and the field', async () => {
    const response = await app.inject({ method: 'POST', url: `/test/echo/${VALID_ID}`, payload: { name: 'far too long' } });
    expect(response.statusCode).toBe(422);
    const body = response.json();
    expectErrorBody(body, 'unprocessable_entity', 'VALIDATION_ERROR');
    expect(body.details).toMatchObject({ field: 'name', location: 'body' });
    expect(body.details.reason).toMatch(/5/);
  });

  it('answers a bad path id with 400', async () => {
    const response = await app.inject({ method: 'POST', url: '/test/echo/not-a-uuid', payload: { name: 'ok' } });
    expect(response.statusCode).toBe(400);
    expectErrorBody(response.json(), 'bad_request', 'INVALID_PARAMETER');
    expect(response.json().details.field).toBe('id');
  });

  it('accepts the valid request', async () => {
    const response = await app.inject({ method: 'POST', url: `/test/echo/${VALID_ID}`, payload: { name: 'ok' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: VALID_ID, name: 'ok' });
  });

  it('maps an AppError code to its status and keeps its details', async () => {
    const response = await app.inject({ method: 'GET', url: '/test/app-error' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({
      error: 'not_found',
      code: 'NOTE_NOT_FOUND',
      message: 'Note not found',
      details: { note_id: 'x' },
    });
  });

  it('never leaks internals in a 500, but logs them with the request id', async () => {
    const response = await app.inject({ method: 'GET', url: '/test/boom' });
    expect(response.statusCode).toBe(500);
    const body = response.json();
    expectErrorBody(body, 'internal_server_error', 'INTERNAL_ERROR');
    expect(response.body).not.toMatch(/10\.0\.0\.5|password|stack/i);
    expect(logs.some((line) => line.includes('10.0.0.5') && line.includes(body.request_id))).toBe(true);
  });
});

describe('logs', () => {
  it('redact keys, tokens and cookies while still logging headers', async () => {
    const canary = `vnk_${'c0ffee'.repeat(5)}ab`;
    await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: {
        'x-api-key': canary,
        authorization: `Bearer crm_live_${canary}`,
        cookie: `vetflow_session=${canary}`,
        'user-agent': 'redaction-probe/1.0',
      },
    });
    const all = logs.join('\n');
    expect(all).toContain('redaction-probe/1.0');
    expect(all).not.toContain(canary);
  });

  it('log only allowlisted headers: a credential under any other name never appears', async () => {
    const canary = `odd-header-secret-${Date.now()}`;
    const headers = ['api-key', 'x-auth-token', 'proxy-authorization', 'x-access-token', 'x-custom-credential'];
    await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { ...Object.fromEntries(headers.map((name) => [name, `${canary}-${name}`])), 'user-agent': 'allowlist-probe/1.0' },
    });
    const all = logs.join('\n');
    expect(all).toContain('allowlist-probe/1.0');
    expect(all).not.toContain(canary);
  });
});

describe('request lines', () => {
  it('one info line per request, when it completes: the request, its status and time, its request id', async () => {
    const requestId = `one-line-${Date.now()}`;
    await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': requestId, 'user-agent': 'one-line-probe/1.0' } });
    const lines = logs.map((line) => JSON.parse(line)).filter((line) => line.request_id === requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { method: 'GET', url: '/healthz', headers: { 'user-agent': 'one-line-probe/1.0' } },
      res: { statusCode: 200 },
    });
    expect(typeof lines[0].responseTime).toBe('number');
  });

  it('logs the request as it arrives at debug level', async () => {
    const { app: debugApp, logs: debugLogs } = await createTestApp({ env: { LOG_LEVEL: 'debug' } });
    const requestId = `arrival-${Date.now()}`;
    await debugApp.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': requestId } });
    const lines = debugLogs.map((line) => JSON.parse(line)).filter((line) => line.request_id === requestId);
    expect(lines.map(({ level, msg }) => [level, msg])).toEqual([
      [20, 'incoming request'],
      [30, 'request completed'],
    ]);
  });
});

describe('server timeouts', () => {
  it('gives the Node server the configured request, connection and keep-alive timeouts', async () => {
    // Values none of which is a default, so each can only have come from its own variable.
    const env = testEnv({
      LOG_LEVEL: 'silent',
      REQUEST_TIMEOUT_MS: '123000',
      CONNECTION_TIMEOUT_MS: '45000',
      KEEP_ALIVE_TIMEOUT_MS: '67000',
    });
    const tuned = await buildApp(loadConfig(env), { database: db.database });
    try {
      expect(tuned.server.requestTimeout).toBe(123_000);
      expect(tuned.server.timeout).toBe(45_000); // connectionTimeout is the socket idle timeout
      expect(tuned.server.keepAliveTimeout).toBe(67_000);
    } finally {
      await tuned.close();
    }
  });
});

describe('graceful close', () => {
  it('finishes an in-flight request before closing', async () => {
    const other = closable;
    other.get('/test/slow', { config: { access: 'public' } }, async () => {
      await sleep(400);
      return { done: true };
    });
    await other.listen({ port: 0, host: '127.0.0.1' });
    const address = other.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const inFlight = fetch(`http://127.0.0.1:${port}/test/slow`);
    // A client halfway through sending its request when shutdown starts.
    const late = connect(port, '127.0.0.1');
    let lateAnswer = '';
    late.on('data', (chunk) => {
      lateAnswer += String(chunk);
    });
    late.on('error', () => {});
    late.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    await sleep(100);
    const started = Date.now();
    const closing = other.close();
    await sleep(50);
    late.write('\r\n');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toEqual({ done: true });
    await closing;
    // The request that completed after shutdown began got our 503 body, not Fastify's own.
    expect(lateAnswer).toMatch(/^HTTP\/1\.1 503/);
    expect(lateAnswer.toLowerCase()).toContain('retry-after: 1');
    expectErrorBody(JSON.parse(lateAnswer.slice(lateAnswer.indexOf('\r\n\r\n') + 4)), 'service_unavailable', 'SERVICE_UNAVAILABLE');
    // The keep-alive socket must not hold shutdown for its idle timeout (72 s).
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
