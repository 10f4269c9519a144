import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { requestBodyBytesPassed } from '../../platform/memory-release.ts';

/** A part's bytes as received: in a local temporary file (flushed to disk), hashed and counted. */
export interface ReceivedPart {
  path: string;
  bytes: number;
  sha256: string;
  /** The first bytes, for sniffing the format. */
  head: Buffer;
}

const HEAD_BYTES = 64;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The content-type parser of `PUT /notes/{id}/parts/{n}`, for any Content-Type: streams the raw
 * body to a temporary file while hashing and counting it (memory stays bounded whatever the size)
 * and refuses a body over `maxBytes` as soon as it passes it — at once when Content-Length says so,
 * else when the byte that passes arrives. The file is flushed (fsync) before the parser returns, so
 * a part is on disk before the answer that acknowledges it. On any failure the file is removed.
 * A refusal leaves the request stream open: the 413 is answered, then the rest of the body is read
 * and dropped for a bounded while before the connection closes (platform/http/lingering-close.ts).
 */
export function partParser(tmpDir: string, maxBytes: number) {
  return async (request: FastifyRequest, payload: Readable): Promise<ReceivedPart> => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) throw partTooLarge(declared, maxBytes);
    await mkdir(tmpDir, { recursive: true });
    // Named after its note (the route's id, when it is one), so the note's erasure finds it (processing/temp-dir.ts).
    const noteId = (request.params as { id?: unknown } | undefined)?.id;
    const owner = typeof noteId === 'string' && UUID.test(noteId) ? `${noteId.toLowerCase()}-` : '';
    const file = path.join(tmpDir, `${owner}${randomUUID()}.part`);
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let headLength = 0;
    let bytes = 0;
    try {
      await pipeline(
        // Not the stream itself: pipeline would destroy it on a refusal, which resets the connection
        // and loses the answer.
        payload.iterator({ destroyOnReturn: false }),
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            bytes += chunk.length;
            if (bytes > maxBytes) throw partTooLarge(bytes, maxBytes);
            // As an upload's: the dead chunks are freed before they start a full mark (memory-release.ts).
            requestBodyBytesPassed(chunk.length);
            hash.update(chunk);
            if (headLength < HEAD_BYTES) {
              head.push(chunk.subarray(0, HEAD_BYTES - headLength));
              headLength += Math.min(chunk.length, HEAD_BYTES - headLength);
            }
            yield chunk;
          }
        },
        createWriteStream(file, { flush: true }),
      );
      return { path: file, bytes, sha256: hash.digest('hex'), head: Buffer.concat(head) };
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
  };
}

export function partTooLarge(fileSize: number, maxSize: number): AppError {
  return new AppError('AUDIO_TOO_LARGE', `A part may hold at most ${maxSize} bytes`, {
    file_size: fileSize,
    max_size: maxSize,
    max_size_mb: Math.round(maxSize / 1_048_576),
  });
}
