import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { fixture, multipartBody } from '../helpers/uploads.ts';

// Input Postgres cannot store (NUL, lone surrogates) and requests Fastify or Node answer on their
// own: each must get the documented error body with its request id, never a 500.

const t = await createTestApp({ env: CRM_TEST_ENV });
const { app } = t;
const keys = await createClinicWithKeys(t.db.database);
const workspace = await makeWorkspace(t);
const crm = await makeKey(t, workspace.workspaceId);
const notesAuth = { 'x-api-key': keys.admin };
const crmAuth = { authorization: `Bearer ${crm.token}` };
const contacts = `/flow/v1/external/workspaces/${workspace.workspaceId}/contacts`;

function expectErrorBody(response: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = JSON.parse(response.body);
  expect(body).toMatchObject({ code });
  expect(Object.keys(body).every((key) => ['error', 'message', 'code', 'details', 'request_id'].includes(key))).toBe(true);
  expect(typeof body.request_id).toBe('string');
  expect(response.headers['x-request-id']).toBe(body.request_id);
  return body as { details?: Record<string, unknown>; message: string };
}

describe('text Postgres cannot store', () => {
  it('refuses NUL in a query string with 422 naming the field', async () => {
    const response = await app.inject({ method: 'GET', url: `${PREFIX}/notes?name=a%00b`, headers: notesAuth });
    const body = expectErrorBody(response, 422, 'VALIDATION_ERROR');
    expect(body.details).toMatchObject({ field: 'name', location: 'querystring' });
  });

  it('refuses NUL and lone surrogates in JSON bodies, in values and in keys', async () => {
    const cases: [string, string][] = [
      ['{"name":"Ana\\u0000","phone":"11987654321"}', 'name'],
      ['{"name":"Ana \\ud800","phone":"11987654321"}', 'name'],
      ['{"name":"Ana","phone":"11987654321","address":"Rua \\udc00 1"}', 'address'],
      ['{"name":"Ana","phone":"11987654321","extra\\u0000":"x"}', 'extra\\u0000'],
    ];
    for (const [payload, field] of cases) {
      const response = await app.inject({
        method: 'PUT',
        url: contacts,
        headers: { ...crmAuth, 'content-type': 'application/json' },
        payload,
      });
      const body = expectErrorBody(response, 422, 'VALIDATION_ERROR');
      expect(body.details, payload).toMatchObject({ field, location: 'body' });
    }
  });

  it('refuses NUL in a login e-mail before any query', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/flow/v1/api/auth/login',
      payload: { email: 'a\u0000@b.example', password: 'whatever-it-is' },
    });
    expect(expectErrorBody(response, 422, 'VALIDATION_ERROR').details).toMatchObject({ field: 'email' });
  });

  it('refuses NUL in a path parameter with 400', async () => {
    const response = await app.inject({ method: 'GET', url: `${PREFIX}/api-keys/a%00b/usage`, headers: notesAuth });
    expect(expectErrorBody(response, 400, 'INVALID_PARAMETER').details).toMatchObject({ field: 'id', location: 'params' });
  });

  it('refuses NUL in a header it reads with 400', async () => {
    const response = await app.inject({ method: 'GET', url: `${PREFIX}/notes`, headers: { 'x-api-key': `${keys.admin}\u0000` } });
    expect(expectErrorBody(response, 400, 'INVALID_PARAMETER').details).toMatchObject({ field: 'x-api-key', location: 'headers' });
  });

  it('refuses NUL and lone surrogates in upload metadata, extra metadata fields and file names', async () => {
    const audio = { bytes: fixture('consultation.mp3'), fileName: 'consulta.mp3' };
    const cases: [Parameters<typeof multipartBody>[0], string][] = [
      [{ audio, metadata: '{"name":"Thor\\u0000"}' }, 'metadata.name'],
      [{ audio, metadata: '{"name":"Thor","owner_name":"Ana\\ud800"}' }, 'metadata.owner_name'],
      [{ audio, metadata: '{"name":"Thor","metadata":[{"key":"k","value":"v\\u0000"}]}' }, 'metadata.metadata.0.value'],
      [{ audio, metadata: { name: 'Thor' }, extra: { note: 'a\u0000b' } }, 'note'],
      [{ audio: { ...audio, fileName: 'con\u0000sulta.mp3' }, metadata: { name: 'Thor' } }, 'audio.filename'],
    ];
    for (const [parts, field] of cases) {
      const { payload, headers } = await multipartBody(parts);
      const response = await app.inject({ method: 'POST', url: `${PREFIX}/notes`, headers: { ...notesAuth, ...headers }, payload });
      expect(expectErrorBody(response, 422, 'VALIDATION_ERROR').details, field).toMatchObject({ field });
    }
  });
});

describe('multipart framing', () => {
  const audio = fixture('consultation.mp3');

  it.each([
    ['no boundary', 'multipart/form-data', 'irrelevant'],
    ['a boundary over 256 characters', `multipart/form-data; boundary=${'b'.repeat(300)}`, 'irrelevant'],
    [
      'a wrong boundary',
      'multipart/form-data; boundary=nothere',
      '--other\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{}\r\n--other--\r\n',
    ],
    ['garbage', 'multipart/form-data; boundary=x', '\u0001\u0002garbage garbage'],
    [
      'no closing boundary',
      'multipart/form-data; boundary=x',
      `--x\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{"name":"Thor"}\r\n--x\r\nContent-Disposition: form-data; name="audio"; filename="a.mp3"\r\n\r\n${audio.subarray(0, 2000).toString('latin1')}`,
    ],
  ])('answers %s with 400 in the error body', async (_name, contentType, payload) => {
    const response = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes`,
      headers: { ...notesAuth, 'content-type': contentType },
      payload: Buffer.from(payload, 'latin1'),
    });
    expectErrorBody(response, 400, 'INVALID_REQUEST');
  });
});

describe('what Fastify answers itself', () => {
  it('answers a bad percent-encoding in the path with 400 in the error body', async () => {
    const response = await app.inject({ method: 'GET', url: `${PREFIX}/notes/%zz` });
    expectErrorBody(response, 400, 'INVALID_REQUEST');
  });

  it('answers a path parameter over 100 characters with 400 in the error body', async () => {
    const response = await app.inject({ method: 'GET', url: `${PREFIX}/notes/${'a'.repeat(150)}`, headers: notesAuth });
    expectErrorBody(response, 400, 'INVALID_PARAMETER');
  });

  it('answers a JSON body over the limit with 413 and an unsupported type with 415', async () => {
    const big = await app.inject({
      method: 'PUT',
      url: contacts,
      headers: { ...crmAuth, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(t.config.BODY_LIMIT_BYTES + 10) }),
    });
    expectErrorBody(big, 413, 'PAYLOAD_TOO_LARGE');
    const xml = await app.inject({
      method: 'PUT',
      url: contacts,
      headers: { ...crmAuth, 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expectErrorBody(xml, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('what Node refuses before Fastify (real HTTP)', () => {
  async function rawExchange(request: string): Promise<string> {
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('not listening');
    return new Promise((resolve, reject) => {
      const socket = connect(address.port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
      socket.write(request);
    });
  }

  function parse(raw: string) {
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    const [statusLine = '', ...headerLines] = head.split('\r\n');
    const headers = Object.fromEntries(
      headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    return { statusCode: Number(statusLine.split(' ')[1]), headers, body };
  }

  it('answers a URL over 16 kB with 431, the error body and Connection: close', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const response = parse(await rawExchange(`GET ${PREFIX}/notes?name=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expectErrorBody(response, 431, 'HEADERS_TOO_LARGE');
    expect(response.headers.connection).toBe('close');
  });

  it('answers a NUL in a header value with 400, the error body and Connection: close', async () => {
    const response = parse(await rawExchange(`GET ${PREFIX}/notes HTTP/1.1\r\nHost: x\r\nX-API-KEY: a\u0000b\r\n\r\n`));
    expectErrorBody(response, 400, 'INVALID_REQUEST');
    expect(response.headers.connection).toBe('close');
  });
});
