// Uploads a multipart body whose file part is a local file (a chunk in the temporary directory)
// with `node:http`, read into one reused buffer per upload: each read waits until the previous
// bytes are written to the socket, so a 16 MB chunk allocates 256 KiB instead of ~32 MB of
// short-lived buffers (what `fetch` makes of a stream: a buffer per read, then a copy of each),
// which V8 collects only once tens of MB have piled up. See docs/decisions.md.

import { open } from 'node:fs/promises';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ProviderResponse } from '../http.ts';
import { AudioReadError, type MultipartEnvelope } from './multipart.ts';

const BUFFER_BYTES = 256 * 1024;

export interface FileUpload {
  url: string;
  headers: Record<string, string>;
  envelope: MultipartEnvelope;
  file: string;
  sizeBytes: number;
}

/**
 * POSTs `envelope.head`, the file and `envelope.tail`; resolves with the whole answer. A failure
 * to read the file rejects with an error whose `cause` is an AudioReadError, as `fetch` reports
 * a failing body; `signal` ends the request and the read.
 */
export async function postFile(upload: FileUpload, signal: AbortSignal): Promise<ProviderResponse> {
  signal.throwIfAborted();
  const handle = await open(upload.file).catch((error: Error) => {
    throw bodyFailure(new AudioReadError(`reading the audio failed: ${error.message}`, { sizeMismatch: false, cause: error }));
  });
  let req: ClientRequest | undefined;
  let sent: Promise<unknown> = Promise.resolve();
  try {
    const url = new URL(upload.url);
    req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: {
        ...upload.headers,
        'content-type': upload.envelope.contentType,
        'content-length': String(upload.envelope.head.byteLength + upload.sizeBytes + upload.envelope.tail.byteLength),
      },
      signal,
    });
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      req!.once('response', resolve);
      // Kept after the answer: a later socket error must not be an unhandled 'error' event.
      req!.on('error', reject);
    });
    const current = req;
    sent = writeBody(current, handle, upload).catch((error: unknown) => {
      if (error instanceof AudioReadError) current.destroy(bodyFailure(error));
    });
    // A server may answer (413) before it has read the whole body; its answer is what counts then.
    const response = await answered;
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    return { status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') };
  } finally {
    // Answered before the whole body was sent, or failed: the connection cannot be reused.
    if (req && !req.writableEnded) req.destroy();
    await sent;
    await handle.close();
  }
}

function bodyFailure(cause: AudioReadError): Error {
  return new TypeError('the request body failed', { cause });
}

async function writeBody(req: ClientRequest, handle: Awaited<ReturnType<typeof open>>, upload: FileUpload): Promise<void> {
  await write(req, upload.envelope.head);
  const buffer = Buffer.allocUnsafe(Math.min(BUFFER_BYTES, Math.max(1, upload.sizeBytes)));
  let sent = 0;
  for (;;) {
    let bytesRead: number;
    try {
      ({ bytesRead } = await handle.read(buffer, 0, buffer.byteLength, sent));
    } catch (error) {
      throw new AudioReadError(`reading the audio failed: ${(error as Error).message}`, { sizeMismatch: false, cause: error });
    }
    if (bytesRead === 0) break;
    sent += bytesRead;
    if (sent > upload.sizeBytes) {
      throw new AudioReadError(`the audio is longer than its recorded ${upload.sizeBytes} bytes`, { sizeMismatch: true });
    }
    // The buffer is read into again only once the socket has taken these bytes.
    await write(req, buffer.subarray(0, bytesRead));
  }
  if (sent !== upload.sizeBytes) {
    throw new AudioReadError(`the audio has ${sent} bytes, not the recorded ${upload.sizeBytes}`, { sizeMismatch: true });
  }
  await write(req, upload.envelope.tail);
  req.end();
}

function write(req: ClientRequest, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    if (req.destroyed) return reject(req.errored ?? new Error('the request was closed'));
    // A request destroyed before its socket connected may never call back: its 'close' ends the wait.
    const closed = () => reject(new Error('the request was closed'));
    req.once('close', closed);
    req.write(bytes, (error) => {
      req.off('close', closed);
      if (error) reject(error);
      else resolve();
    });
  });
}
