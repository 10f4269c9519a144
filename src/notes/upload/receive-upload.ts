import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { rejectUnstorable } from '../../platform/http/input-boundary.ts';
import { requestBodyBytesPassed } from '../../platform/memory-release.ts';

export interface ReceivedAudio {
  /** Local temporary file holding the bytes; the caller moves or deletes it. */
  path: string;
  fileName: string | null;
  bytes: number;
  sha256: string;
  /** The first bytes, for sniffing the format. */
  head: Buffer;
}

export interface ReceivedUpload {
  fields: Record<string, string>;
  audio: ReceivedAudio | null;
}

const HEAD_BYTES = 64;
const FIELD_BYTES = 256 * 1024;
const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Reads a multipart upload part by part, streaming the `audio` file to a temporary file while
 * hashing and counting it: memory stays bounded whatever the size. On any failure the temporary
 * file is removed before the error propagates.
 */
export async function receiveUpload(request: FastifyRequest, tmpDir: string, maxBytes: number): Promise<ReceivedUpload> {
  await mkdir(tmpDir, { recursive: true });
  const fields: Record<string, string> = {};
  let audio: ReceivedAudio | null = null;
  let tmpPath: string | null = null;
  try {
    // Two files at most: the audio, and the metadata when a client sends it as a JSON file part.
    const parts = request.parts({ limits: { fileSize: maxBytes, files: 2, fields: 10, fieldSize: FIELD_BYTES, parts: 12 } });
    for await (const part of parts) {
      if (part.type === 'field') {
        rejectUnstorable({ [part.fieldname]: part.value }, 'body');
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      if (part.filename) {
        part.file.resume();
        rejectUnstorable(part.filename, 'body', `${part.fieldname}.filename`);
      }
      // Generated clients (openapi-generator) send a part whose encoding is application/json as a
      // file (`Content-Type: application/json`, a file name): its text is the metadata all the same.
      if (part.fieldname === 'metadata' && fields.metadata === undefined) {
        fields.metadata = await textOf(part.file);
        rejectUnstorable({ metadata: fields.metadata }, 'body');
        continue;
      }
      if (audio) {
        part.file.resume();
        throw new AppError('VALIDATION_ERROR', 'Send exactly one audio file', { field: 'audio', reason: 'more than one file' });
      }
      if (part.fieldname !== 'audio') {
        part.file.resume();
        throw new AppError('VALIDATION_ERROR', `Unexpected file part "${part.fieldname}": send the audio as "audio"`, {
          field: part.fieldname,
          reason: 'unexpected file part',
        });
      }
      tmpPath = path.join(tmpDir, `${randomUUID()}.upload`);
      const hash = createHash('sha256');
      let bytes = 0;
      const chunks: Buffer[] = [];
      let headLength = 0;
      // Counted and hashed as each chunk passes, not in a Transform between the two streams: one
      // stream hop less per chunk. The file stream buffers up to 1 MiB before it pushes back, so
      // the socket keeps being read while a write is in flight, and chunks that queued meanwhile
      // go to disk in one writev (docs/benchmarks.md, uploads).
      part.file.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        // The body's dead chunks are freed by a scavenge before they can start a full mark of the heap.
        requestBodyBytesPassed(chunk.length);
        hash.update(chunk);
        if (headLength < HEAD_BYTES) {
          chunks.push(chunk.subarray(0, HEAD_BYTES - headLength));
          headLength += Math.min(chunk.length, HEAD_BYTES - headLength);
        }
      });
      // Refused the moment the file passes the limit: left alone, busboy would read (and drop) the
      // rest of the part, however long, before anything answers.
      const passedLimit = new AbortController();
      part.file.once('limit', () => passedLimit.abort());
      await pipeline(part.file, createWriteStream(tmpPath, { highWaterMark: WRITE_BUFFER_BYTES }), { signal: passedLimit.signal }).catch(
        (error: unknown) => {
          throw passedLimit.signal.aborted ? tooLarge(sizeHint(request, bytes), maxBytes) : error;
        },
      );
      // @fastify/multipart may mark an oversized file `truncated` instead of throwing.
      if (part.file.truncated) throw tooLarge(sizeHint(request, bytes), maxBytes);
      audio = { path: tmpPath, fileName: part.filename || null, bytes, sha256: hash.digest('hex'), head: Buffer.concat(chunks) };
    }
    return { fields, audio };
  } catch (error) {
    if (tmpPath) await rm(tmpPath, { force: true });
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(sizeHint(request, maxBytes + 1), maxBytes);
    if ((error as { code?: string }).code === 'FST_FILES_LIMIT') {
      throw new AppError('VALIDATION_ERROR', 'Send exactly one audio file', { field: 'audio', reason: 'more than one file' });
    }
    if ((error as { code?: string }).code === 'FST_PARTS_LIMIT' || (error as { code?: string }).code === 'FST_FIELDS_LIMIT') {
      throw new AppError('VALIDATION_ERROR', 'Too many parts in the upload', { field: 'body', reason: 'too many parts' });
    }
    if (isFramingError(error)) {
      throw new AppError('INVALID_REQUEST', 'The multipart/form-data body is malformed', {
        field: 'body',
        reason: (error as Error).message,
      });
    }
    throw error;
  }
}

/** A small file part's text, refused past the size of a text field. */
async function textOf(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += chunk.length;
    if (bytes > FIELD_BYTES) {
      throw new AppError('VALIDATION_ERROR', `The metadata part exceeds ${FIELD_BYTES / 1024} KiB`, {
        field: 'metadata',
        reason: 'too large',
      });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// The multipart parser (busboy) throws plain Errors for bodies that are not well-formed
// multipart: no or an over-long boundary, a boundary never found, a body cut before its end.
const FRAMING_ERRORS =
  /^Multipart: Boundary not found|Unexpected end of multipart data|terminated early|^The needle cannot|^Unsupported Content-Type/;

function isFramingError(error: unknown): boolean {
  return error instanceof Error && !(error instanceof AppError) && FRAMING_ERRORS.test(error.message);
}

// The upload stops at the limit, so its real size is unknown: the request's Content-Length (file
// plus a little multipart framing) is the best figure when the client sent one.
function sizeHint(request: FastifyRequest, bytesRead: number): number {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) && declared > bytesRead ? declared : bytesRead;
}

function tooLarge(fileSize: number, maxSize: number): AppError {
  return new AppError('AUDIO_TOO_LARGE', `The audio file exceeds ${Math.round(maxSize / 1_048_576)} MB`, {
    file_size: fileSize,
    max_size: maxSize,
    max_size_mb: Math.round(maxSize / 1_048_576),
  });
}
