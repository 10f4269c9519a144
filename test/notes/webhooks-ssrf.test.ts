import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { activeSecrets } from '../../src/notes/webhooks/deliver.job.ts';
import { SecretBox, SecretUnreadableError } from '../../src/notes/webhooks/secrets.ts';
import { postJson, withDeadline } from '../../src/notes/webhooks/sender.ts';
import { isPrivateAddress, resolveTarget, TargetRefusedError } from '../../src/notes/webhooks/target-guard.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { startReceiver } from './webhooks-receiver.ts';

describe('the SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fd00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::', // 6to4 carrying 127.0.0.1
    '2002:a9fe:a9fe::1', // 6to4 carrying 169.254.169.254
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    // Every other form of IPv6 that carries an IPv4 address:
    '::ffff:0:7f00:1', // IPv4-translated (SIIT) carrying 127.0.0.1
    '::ffff:0:169.254.169.254', // IPv4-translated, dotted
    '::ffff:0:8.8.8.8', // IPv4-translated: reached through a translator we cannot see
    '64:ff9b:1::a00:1', // NAT64 local-use prefix carrying 10.0.0.1
    '64:ff9b:1:ffff::808:808', // NAT64 local-use prefix, anywhere in its /48
    '::127.0.0.1', // IPv4-compatible (deprecated)
    '::8.8.8.8',
    '2606:4700::5efe:a00:1', // ISATAP interface id carrying 10.0.0.1
    '2606:4700::200:5efe:a9fe:a9fe', // ISATAP (universal bit) carrying 169.254.169.254
    '::ffff:100.64.0.1', // IPv4-mapped carrier-grade NAT
    '1:2:3:4:5:6:7:8:9', // not an address we can read
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:808:808::1', '2606:4700::5efe:808:808'])(
    'allows %s',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );

  it('refuses http, literal private addresses and names that resolve to any private address', async () => {
    const resolver = async (host: string) =>
      host === 'rebind.example.com'
        ? [
            { address: '93.184.215.14', family: 4 },
            { address: '10.0.0.7', family: 4 },
          ]
        : host === 'translated.example.com'
          ? [{ address: '64:ff9b:1::7f00:1', family: 6 }]
          : [{ address: '93.184.215.14', family: 4 }];
    for (const url of [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'https://[::ffff:169.254.169.254]/x',
      'https://[::ffff:0:169.254.169.254]/x',
      'https://[64:ff9b:1::a9fe:a9fe]/x',
      'https://translated.example.com/x',
      'https://localhost/x',
      'https://intranet/x',
      'https://user:pw@hooks.example.com/x',
      'https://rebind.example.com/x',
    ]) {
      await expect(resolveTarget(url, false, resolver), url).rejects.toBeInstanceOf(TargetRefusedError);
    }
    const ok = await resolveTarget('https://hooks.example.com/x', false, resolver);
    expect(ok).toMatchObject({ address: '93.184.215.14', family: 4 });
    expect(ok.url.hostname).toBe('hooks.example.com');
  });

  it('connects to the checked address, keeping the host name, and follows no redirect', async () => {
    const receiver = await startReceiver(() => 302);
    const port = new URL(receiver.url).port;
    const target = await resolveTarget(`http://hooks.example.com:${port}/hooks`, true, async () => [{ address: '127.0.0.1', family: 4 }]);
    const result = await postJson(target, { 'webhook-id': 'x' }, '{}', 2_000);
    expect(result.statusCode).toBe(302);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.headers.host).toBe(`hooks.example.com:${port}`);
  });

  it('times out a receiver that does not answer', async () => {
    const receiver = await startReceiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 3_000)));
    const target = await resolveTarget(receiver.url, true);
    const started = Date.now();
    await expect(postJson(target, {}, '{}', 300)).rejects.toThrow(/no answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('counts a status that arrived even when the body then hangs past the timeout', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('ok, still writing');
      // ...and never ends.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const target = await resolveTarget(`http://127.0.0.1:${port}/hooks`, true);
      const started = Date.now();
      await expect(postJson(target, {}, '{}', 300)).resolves.toEqual({ statusCode: 200, bodyStart: 'ok, still writing' });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('bounds the DNS lookup by the same deadline', async () => {
    const hanging = resolveTarget('https://hooks.example.com/x', false, () => new Promise(() => {}));
    await expect(withDeadline(hanging, 200, 'DNS lookup')).rejects.toThrow(/DNS lookup: no answer within 200 ms/);
    await expect(withDeadline(Promise.resolve(7), 200, 'DNS lookup')).resolves.toBe(7);
  });
});

describe('secrets at rest', () => {
  it('decrypt only with the same key and on the same endpoint', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const sealed = box.seal('whsec_abc', 'endpoint-1');
    expect(sealed).not.toContain('abc');
    expect(box.open(sealed, 'endpoint-1')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'endpoint-2')).toThrow(SecretUnreadableError);
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, 'endpoint-1')).toThrow(SecretUnreadableError);
    const row = {
      id: 'endpoint-1',
      secretEncrypted: sealed,
      previousSecretEncrypted: sealed,
      previousSecretExpiresAt: new Date(Date.now() - 1),
    };
    expect(activeSecrets(box, row as never)).toHaveLength(1);
  });
});

describe('with private targets not allowed', async () => {
  const { app, db } = await createTestApp({ startWorkers: true, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } });
  const clinic = await createClinicWithKeys(db.database);

  it.each([
    'http://hooks.example.com/x',
    'https://127.0.0.1/x',
    'https://10.0.0.5/x',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/x',
    'https://localhost:8443/x',
  ])('refuses to register %s', async (url) => {
    const response = await app.inject({
      method: 'POST',
      url: '/notes/v1/webhooks',
      headers: { 'x-api-key': clinic.admin },
      payload: { url, events: ['note.completed'] },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'url' } });
  });

  it('registers a public https URL', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/notes/v1/webhooks',
      headers: { 'x-api-key': clinic.admin },
      payload: { url: 'https://hooks.example.com/vetflow', events: ['note.completed'] },
    });
    expect(response.statusCode).toBe(201);
  });

  it('refuses at delivery a target that became private (the check runs on every attempt)', async () => {
    const receiver = await startReceiver();
    const created = await app.inject({
      method: 'POST',
      url: '/notes/v1/webhooks',
      headers: { 'x-api-key': clinic.admin },
      payload: { url: 'https://hooks.example.com/vetflow', events: ['note.completed'] },
    });
    const id = created.json().id;
    await db.database.db.execute(sql`update webhook_endpoints set url = ${receiver.url.replace('http:', 'https:')} where id = ${id}`);
    const test = await app.inject({ method: 'POST', url: `/notes/v1/webhooks/${id}/test`, headers: { 'x-api-key': clinic.admin } });
    expect(test.statusCode).toBe(202);
    const failed = await eventually(async () => {
      const list = await app.inject({ method: 'GET', url: `/notes/v1/webhooks/${id}/deliveries`, headers: { 'x-api-key': clinic.admin } });
      return list.json().data.find((row: { status: string }) => row.status === 'failed');
    });
    expect(failed).toMatchObject({ attempts: 1, last_status_code: null, next_attempt_at: null });
    expect(failed.last_error).toMatch(/target refused: .*127\.0\.0\.1/);
    expect(receiver.received).toHaveLength(0);
  });
});
