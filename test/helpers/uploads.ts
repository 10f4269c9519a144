import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { ROOT } from './processes.ts';

export const FIXTURES = path.join(ROOT, 'test/fixtures/audio');

export function fixture(name: string): Buffer {
  return readFileSync(path.join(FIXTURES, name));
}

/**
 * A multipart/form-data body as a real client would send it (serialised by the platform's own
 * FormData), ready for app.inject or fetch.
 */
export async function multipartBody(parts: {
  audio?: { bytes: Buffer; fileName: string; type?: string };
  metadata?: string | object;
  extra?: Record<string, string>;
}): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  if (parts.metadata !== undefined) {
    form.append('metadata', typeof parts.metadata === 'string' ? parts.metadata : JSON.stringify(parts.metadata));
  }
  for (const [name, value] of Object.entries(parts.extra ?? {})) form.append(name, value);
  if (parts.audio) {
    form.append(
      'audio',
      new Blob([new Uint8Array(parts.audio.bytes)], { type: parts.audio.type ?? 'application/octet-stream' }),
      parts.audio.fileName,
    );
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type') ?? '' },
  };
}

interface Injector {
  inject(options: { method: 'GET' | 'POST'; url: string; payload?: Buffer; headers: Record<string, string> }): Promise<{
    statusCode: number;
    headers: Record<string, string | string[] | number | undefined>;
    body: string;
    json(): any;
  }>;
}

export type UploadParts = Parameters<typeof multipartBody>[0];

/** The audio part of an upload: a fixture by name (sent under that name), or bytes and a name. */
export type UploadAudio = string | { bytes: Buffer; fileName: string; type?: string };

const audioPart = (audio: UploadAudio) => (typeof audio === 'string' ? { bytes: fixture(audio), fileName: audio } : audio);

/**
 * POST /notes/v1/notes with a multipart body made of `parts`, authenticated by `key` (plus any
 * `headers`), through app.inject; returns the answer, whatever its status.
 */
export async function postNote(app: Injector, key: string, parts: UploadParts, headers: Record<string, string> = {}) {
  const body = await multipartBody(parts);
  return app.inject({
    method: 'POST',
    url: '/notes/v1/notes',
    payload: body.payload,
    headers: { ...body.headers, 'x-api-key': key, ...headers },
  });
}

/** The same upload over HTTP to a running server (`baseUrl`), as fetch answers it. */
export async function postNoteOverHttp(
  baseUrl: string,
  key: string,
  parts: UploadParts,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = await multipartBody(parts);
  return fetch(`${baseUrl}/notes/v1/notes`, {
    method: 'POST',
    headers: { ...body.headers, 'x-api-key': key, ...headers },
    body: new Uint8Array(body.payload),
  });
}

/**
 * Uploads `audio` (a fixture name, or bytes) as a note through the API and returns its id; fails
 * the test, with the answer's body, on anything but 201.
 */
export async function uploadNote(
  app: Injector,
  key: string,
  metadata: object,
  audio: UploadAudio = 'consultation.mp3',
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await postNote(app, key, { audio: audioPart(audio), metadata }, headers);
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data.id;
}

/** uploadNote over HTTP to a running server (`baseUrl`). */
export async function uploadNoteOverHttp(
  baseUrl: string,
  key: string,
  metadata: object,
  audio: UploadAudio = 'consultation.mp3',
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await postNoteOverHttp(baseUrl, key, { audio: audioPart(audio), metadata }, headers);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}

/** Polls the status route until the note is completed or failed, and returns which. */
export async function waitUntilSettled(app: Injector, key: string, id: string, timeoutMs = 20_000): Promise<'completed' | 'failed'> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status } = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/status`, headers: { 'x-api-key': key } })).json();
    if (status === 'completed' || status === 'failed') return status;
    if (Date.now() > deadline) throw new Error(`note ${id} still ${status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every file under `dir` (none when it does not exist): what an upload left behind. */
export function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}
