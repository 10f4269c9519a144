// A local stand-in for an OpenAI-compatible server: records every request (headers and raw body)
// and answers with whatever the test's handler says. Listens on 127.0.0.1 only.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type FakeHandler = (request: RecordedRequest, response: ServerResponse, index: number) => void | Promise<void>;

export interface FakeServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Called with each request's first body bytes, before the body is complete. */
  onFirstBodyBytes?: () => void;
  handle(handler: FakeHandler): void;
  close(): Promise<void>;
}

export async function startFakeServer(): Promise<FakeServer> {
  let handler: FakeHandler = (_request, response) => json(response, 500, { error: { message: 'no handler set' } });
  const requests: RecordedRequest[] = [];
  const fake: FakeServer = {
    baseUrl: '',
    requests,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      if (chunks.length === 0) fake.onFirstBodyBytes?.();
      chunks.push(chunk);
    });
    req.on('end', () => {
      const recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(recorded);
      void handler(recorded, res, requests.length - 1);
    });
    req.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}

export function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Parses a recorded multipart body with the platform's own parser. */
export async function formData(request: RecordedRequest): Promise<FormData> {
  return new Response(request.body, { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
}

/** The multipart `prompt` field of a recorded transcription request; null when it had none. */
export async function promptOf(request: RecordedRequest): Promise<string | null> {
  const form = await formData(request);
  return form.has('prompt') ? String(form.get('prompt')) : null;
}

/** A chat completion whose message content is `content` (a string as is, anything else JSON-encoded). */
export function chatCompletion(content: unknown) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        finish_reason: 'stop',
        message: { role: 'assistant', content: typeof content === 'string' ? content : JSON.stringify(content) },
      },
    ],
  };
}

/** The parsed JSON body of a recorded chat request. */
export function chatRequest(request: RecordedRequest): {
  model: string;
  messages: { role: string; content: string }[];
  response_format: { type: string; json_schema?: { schema: unknown } };
} {
  return JSON.parse(request.body.toString('utf8'));
}
