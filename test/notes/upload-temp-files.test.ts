import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createTestApp, eventually } from '../helpers/app.ts';
import { createLiveNote } from '../helpers/live-notes.ts';
import { toneClip } from '../helpers/live-parts.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { filesUnder, fixture, multipartBody } from '../helpers/uploads.ts';

// Uploads and live parts are streamed to temporary files under DATA_DIR/tmp before anything else
// looks at them. Whatever ends the request — the client going away mid-body or while the answer is
// being prepared, a body that does not parse, a refusal before the handler runs, a 413 — the file
// must go with it. Real HTTP: app.inject cannot abort a request half-sent.

const t = await createTestApp({ env: { AUDIO_MAX_BYTES: '3000000' } });
await t.app.listen({ port: 0, host: '127.0.0.1' });
const address = t.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const keys = await createClinicWithKeys(t.db.database);
const tmpDir = path.join(t.config.DATA_DIR, 'tmp');
const mp3 = await toneClip('mp3', 0, 20);
const upload = await multipartBody({
  audio: { bytes: fixture('consultation.mp3'), fileName: 'consultation.mp3' },
  metadata: { name: 'Mel' },
});

/**
 * Sends `head` then, `afterMs` later, either the rest of the body (`rest`) or nothing: the client
 * goes away (`abort`). Resolves with the status, or 'aborted'.
 */
function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  { cutAt = body.length, abortAfterMs }: { cutAt?: number; abortAfterMs?: number } = {},
): Promise<number | 'aborted'> {
  return new Promise((resolve) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method,
      path: url,
      agent: false,
      headers: { ...headers, 'content-length': String(body.length) },
    });
    req.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('error', () => resolve('aborted'));
    req.write(body.subarray(0, cutAt));
    if (cutAt < body.length) {
      // The rest never comes: the client goes away mid-body once the server has had time to start the file.
      setTimeout(() => req.destroy(), abortAfterMs ?? 300);
      return;
    }
    req.end();
    if (abortAfterMs !== undefined) setTimeout(() => req.destroy(), abortAfterMs);
  });
}

const liveNote = () => createLiveNote(t.app, keys.editor, 'Mel');

const notes = { ...upload.headers, 'x-api-key': keys.editor };
const part = { 'x-api-key': keys.editor, 'content-type': 'audio/mpeg' };

async function expectNoTemporaryFile() {
  // The request's own cleanup runs as it ends: give it a moment, then require the directory empty.
  await eventually(async () => filesUnder(tmpDir).length === 0, 5_000).catch(() => {});
  expect(filesUnder(tmpDir)).toEqual([]);
}

describe('temporary files of uploads and parts', () => {
  it('an upload whose client goes away mid-body', async () => {
    expect(await send('POST', `${PREFIX}/notes`, notes, upload.payload, { cutAt: Math.floor(upload.payload.length / 2) })).toBe('aborted');
    await expectNoTemporaryFile();
  });

  it('an upload whose client goes away while it is being stored', async () => {
    for (const abortAfterMs of [0, 5, 20, 60]) await send('POST', `${PREFIX}/notes`, notes, upload.payload, { abortAfterMs });
    await expectNoTemporaryFile();
  });

  it('an upload whose multipart body breaks off, and one over AUDIO_MAX_BYTES', async () => {
    const truncated = upload.payload.subarray(0, upload.payload.length - 200);
    expect(await send('POST', `${PREFIX}/notes`, notes, truncated)).toBe(400);
    const big = await multipartBody({ audio: { bytes: Buffer.alloc(4_000_000, 0x55), fileName: 'big.mp3' }, metadata: { name: 'Mel' } });
    expect(await send('POST', `${PREFIX}/notes`, { ...big.headers, 'x-api-key': keys.editor }, big.payload)).toBe(413);
    await expectNoTemporaryFile();
  });

  it('a part whose client goes away mid-body, or while it is being stored', async () => {
    const id = await liveNote();
    expect(await send('PUT', `${PREFIX}/notes/${id}/parts/1`, part, mp3, { cutAt: Math.floor(mp3.length / 2) })).toBe('aborted');
    for (const abortAfterMs of [0, 5, 20, 60]) await send('PUT', `${PREFIX}/notes/${id}/parts/2`, part, mp3, { abortAfterMs });
    await expectNoTemporaryFile();
  });

  it('a part refused after its body was read: a path parameter out of range, a note that is not live', async () => {
    const id = await liveNote();
    expect(await send('PUT', `${PREFIX}/notes/${id}/parts/0`, part, mp3)).toBe(400);
    expect(await send('PUT', `${PREFIX}/notes/${id}/parts/1001`, part, mp3)).toBe(400);
    expect(await send('PUT', `${PREFIX}/notes/not-a-note/parts/1`, part, mp3)).toBe(400);
    expect(await send('PUT', `${PREFIX}/notes/00000000-0000-4000-8000-000000000000/parts/1`, part, mp3)).toBe(404);
    await expectNoTemporaryFile();
  });

  it('a part over 25,000,000 bytes', async () => {
    const id = await liveNote();
    const big = Buffer.alloc(26_000_000, 0x55);
    expect(await send('PUT', `${PREFIX}/notes/${id}/parts/1`, part, big)).toBe(413);
    await sleep(50);
    await expectNoTemporaryFile();
  });
});
