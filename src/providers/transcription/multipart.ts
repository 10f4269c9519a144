// A multipart/form-data body that streams the audio instead of buffering it: only the small
// text parts are held in memory, and the length is known up front (Content-Length), because
// some self-hosted servers handle chunked uploads poorly.

import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';

export interface StreamedFile {
  fieldName: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  open(): Readable;
}

export interface MultipartBody {
  contentType: string;
  contentLength: number;
  body: AsyncIterable<Uint8Array>;
}

/** The audio could not be read while uploading it (storage error) or had the wrong size. */
export class AudioReadError extends Error {
  override name = 'AudioReadError';
  /** A size mismatch means the stored file is not what was uploaded: retrying will not help. */
  readonly sizeMismatch: boolean;

  constructor(message: string, options: { sizeMismatch: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.sizeMismatch = options.sizeMismatch;
  }
}

const encoder = new TextEncoder();
// Quotes and line breaks would break the part header; the server only needs the extension.
const headerSafe = (value: string) => value.replace(/["\r\n\\]/g, '_');

export interface MultipartEnvelope {
  contentType: string;
  /** The text parts and the file part's header: what goes before the file's bytes. */
  head: Uint8Array;
  /** What goes after them. */
  tail: Uint8Array;
}

/** The bytes around the file of a multipart body holding `fields` and then the file. */
export function multipartEnvelope(fields: Record<string, string>, file: Omit<StreamedFile, 'sizeBytes' | 'open'>): MultipartEnvelope {
  const boundary = `vetflow-${randomUUID()}`;
  let head = '';
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${headerSafe(name)}"\r\n\r\n${value}\r\n`;
  }
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name="${headerSafe(file.fieldName)}"; filename="${headerSafe(file.fileName)}"\r\n` +
    `Content-Type: ${headerSafe(file.contentType)}\r\n\r\n`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: encoder.encode(head),
    tail: encoder.encode(`\r\n--${boundary}--\r\n`),
  };
}

/** `signal` ends the upload: the audio stream is destroyed even while a read is pending. */
export function multipartBody(fields: Record<string, string>, file: StreamedFile, signal?: AbortSignal): MultipartBody {
  const { contentType, head: headBytes, tail: tailBytes } = multipartEnvelope(fields, file);

  async function* body(): AsyncGenerator<Uint8Array> {
    yield headBytes;
    let stream: Readable | undefined;
    let sent = 0;
    const stop = () => stream?.destroy(signal?.reason);
    try {
      signal?.throwIfAborted();
      stream = file.open();
      signal?.addEventListener('abort', stop, { once: true });
      for await (const chunk of stream) {
        const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : (chunk as Uint8Array);
        sent += bytes.byteLength;
        if (sent > file.sizeBytes) {
          throw new AudioReadError(`the audio is longer than its recorded ${file.sizeBytes} bytes`, { sizeMismatch: true });
        }
        yield bytes;
      }
    } catch (error) {
      if (error instanceof AudioReadError) throw error;
      throw new AudioReadError(`reading the audio failed: ${(error as Error).message}`, { sizeMismatch: false, cause: error });
    } finally {
      // Also runs when fetch gives up early (abort, timeout), so the file handle is released.
      signal?.removeEventListener('abort', stop);
      stream?.destroy();
    }
    if (sent !== file.sizeBytes) {
      throw new AudioReadError(`the audio has ${sent} bytes, not the recorded ${file.sizeBytes}`, { sizeMismatch: true });
    }
    yield tailBytes;
  }

  return {
    contentType,
    contentLength: headBytes.byteLength + file.sizeBytes + tailBytes.byteLength,
    body: body(),
  };
}
