import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect } from 'vitest';
import type { AppInstance } from '../../src/app.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A local webhook receiver: records every request and answers what `respond` says (200 by default). */
export async function startReceiver(respond: (request: Received, index: number) => number | Promise<number> = () => 200) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const entry = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(entry);
      const status = await respond(entry, received.length - 1);
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 400 ? 'receiver says no' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Requests whose JSON body has this type. */
    ofType: (type: string) => received.filter((entry) => JSON.parse(entry.body).type === type),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Registers a webhook endpoint through the API (201 or the test fails); its id and signing secret. */
export async function registerWebhook(app: AppInstance, key: string, url: string, events = ['note.completed']) {
  const response = await app.inject({ method: 'POST', url: '/notes/v1/webhooks', headers: { 'x-api-key': key }, payload: { url, events } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; secret: string };
}
