import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
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
    json(): any;
  }>;
}

/** Uploads a fixture as a note through the API and returns its id (fails the test on anything but 201). */
export async function uploadNote(app: Injector, key: string, metadata: object, file = 'consultation.mp3'): Promise<string> {
  const body = await multipartBody({ audio: { bytes: fixture(file), fileName: file }, metadata });
  const response = await app.inject({
    method: 'POST',
    url: '/notes/v1/notes',
    payload: body.payload,
    headers: { ...body.headers, 'x-api-key': key },
  });
  if (response.statusCode !== 201) throw new Error(`upload answered ${response.statusCode}: ${JSON.stringify(response.json())}`);
  return response.json().data.id;
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
