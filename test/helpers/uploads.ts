import { readFileSync } from 'node:fs';
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
