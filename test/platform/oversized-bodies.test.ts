import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PART_MAX_BYTES } from '../../src/notes/live/live.schemas.ts';
import { LINGER_MAX_BYTES, LINGER_MAX_MS } from '../../src/platform/http/lingering-close.ts';
import { createTestApp } from '../helpers/app.ts';
import { createLiveNote } from '../helpers/live-notes.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { filesUnder } from '../helpers/uploads.ts';

// A body over its route's limit is answered 413 while the client is still sending it. The answer
// must reach the client: the server answers, then reads and drops the rest of the body for a
// bounded while (lingering close, lingering-close.ts) instead of closing a socket with unread
// bytes, which resets the connection and loses the answer (EPIPE / ECONNRESET at the client).
// Real HTTP over a real socket: app.inject has no socket to reset.

const UPLOAD_MAX_BYTES = 5_000_000;
const t = await createTestApp({ env: { AUDIO_MAX_BYTES: String(UPLOAD_MAX_BYTES) } });
await t.app.listen({ port: 0, host: '127.0.0.1' });
const address = t.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const keys = await createClinicWithKeys(t.db.database);

const CHUNK = Buffer.alloc(64 * 1024, 0x55);

interface Outcome {
  status?: number;
  body?: string;
  /** The client's error that came before any answer (the answer was lost). */
  errorBeforeAnswer?: string;
  /** Any error the client saw (a reset connection: EPIPE, ECONNRESET). */
  error?: string;
  /** Bytes of body the client managed to write before it stopped or was cut off. */
  sent: number;
  /** Whether the connection ended before the client had sent its whole body. */
  cutOff: boolean;
  /** Milliseconds from the answer to the end of the connection. */
  afterAnswerMs?: number;
}

/**
 * Sends `bytes` of body (Infinity: never stops) with Content-Length or chunked, `pauseMs` between
 * chunks, reading the answer meanwhile as a client library does; resolves once the connection is over.
 */
function sendWhileReading(
  url: string,
  {
    bytes,
    chunked,
    headers = {},
    pauseMs = 0,
    head = Buffer.alloc(0),
  }: { bytes: number; chunked: boolean; headers?: Record<string, string>; pauseMs?: number; head?: Buffer },
): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { sent: 0, cutOff: false };
    let answeredAt = 0;
    let writing = true;
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: url.includes('/parts/') ? 'PUT' : 'POST',
      path: url,
      agent: false,
      headers: { ...headers, ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(bytes) }) },
    });
    const finish = () => {
      writing = false;
      if (answeredAt) outcome.afterAnswerMs = Date.now() - answeredAt;
      resolve(outcome);
    };
    req.on('response', (response) => {
      answeredAt = Date.now();
      outcome.status = response.statusCode;
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => {
        outcome.body = text;
      });
      response.on('error', () => {});
    });
    let ended = false;
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (outcome.status === undefined) outcome.errorBeforeAnswer = error.code ?? error.message;
      outcome.error = error.code ?? error.message;
    });
    req.on('close', () => {
      outcome.cutOff = !ended;
      finish();
    });
    void (async () => {
      if (head.length > 0) {
        req.write(head);
        outcome.sent += head.length;
      }
      while (writing && outcome.sent < bytes) {
        const chunk = bytes - outcome.sent < CHUNK.length ? CHUNK.subarray(0, bytes - outcome.sent) : CHUNK;
        const flowing = req.write(chunk);
        outcome.sent += chunk.length;
        if (!flowing) await new Promise((next) => req.once('drain', next).once('close', next));
        if (pauseMs > 0) await new Promise((next) => setTimeout(next, pauseMs));
        if (req.destroyed) return;
      }
      if (writing) {
        ended = true;
        req.end();
      }
    })();
  });
}

/**
 * A client that writes its body forever (chunked unless `headers` give a Content-Length), a chunk
 * every `pauseMs`, whatever it is answered: resolves when the server ends the connection.
 */
function sendRegardless(
  url: string,
  headers: Record<string, string>,
  pauseMs: number,
): Promise<{ answer: string; sent: number; afterAnswerMs: number }> {
  return new Promise((resolve) => {
    const chunked = headers['content-length'] === undefined;
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let answeredAt = 0;
    let sent = 0;
    let open = true;
    socket.on('data', (chunk) => {
      answeredAt ||= Date.now();
      answer += String(chunk);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      open = false;
      resolve({ answer, sent, afterAnswerMs: Date.now() - answeredAt });
    });
    const head = Object.entries({ host: '127.0.0.1', ...headers, ...(chunked ? { 'transfer-encoding': 'chunked' } : {}) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`PUT ${url} HTTP/1.1\r\n${head}\r\n`);
    const frame = chunked ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')]) : CHUNK;
    void (async () => {
      while (open) {
        const flowing = socket.write(frame);
        sent += CHUNK.length;
        if (!flowing) await new Promise((next) => socket.once('drain', next).once('close', next));
        if (pauseMs > 0) await new Promise((next) => setTimeout(next, pauseMs));
      }
    })();
  });
}

const liveNote = () => createLiveNote(t.app, keys.editor, 'Mel');

function expectReadable(outcome: Outcome, status: number, code: string) {
  expect(outcome.errorBeforeAnswer, outcome.body).toBeUndefined();
  expect(outcome.status, outcome.body).toBe(status);
  expect(JSON.parse(outcome.body ?? '{}')).toMatchObject({ code });
  // Nor reset after it: the client stopped sending on reading it, the server read on meanwhile.
  expect(outcome.error).toBeUndefined();
}

const part = { 'x-api-key': keys.editor, 'content-type': 'application/octet-stream' };
const THIRTY_MB = 30_000_000;

describe('an oversized body gets its 413, readable by the client still sending it', () => {
  it('a 30 MB live part with Content-Length', async () => {
    const outcome = await sendWhileReading(`${PREFIX}/notes/${await liveNote()}/parts/1`, {
      bytes: THIRTY_MB,
      chunked: false,
      headers: part,
    });
    expectReadable(outcome, 413, 'AUDIO_TOO_LARGE');
  });

  it('a 30 MB live part sent chunked', async () => {
    const outcome = await sendWhileReading(`${PREFIX}/notes/${await liveNote()}/parts/1`, {
      bytes: THIRTY_MB,
      chunked: true,
      headers: part,
    });
    expectReadable(outcome, 413, 'AUDIO_TOO_LARGE');
  });

  it('an oversized note upload, with Content-Length and chunked', async () => {
    const boundary = 'vetflow-oversized';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{"name":"Mel"}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="big.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
    );
    const headers = { 'x-api-key': keys.editor, 'content-type': `multipart/form-data; boundary=${boundary}` };
    for (const chunked of [false, true]) {
      const outcome = await sendWhileReading(`${PREFIX}/notes`, { bytes: UPLOAD_MAX_BYTES * 2, chunked, headers, head });
      expectReadable(outcome, 413, 'AUDIO_TOO_LARGE');
    }
  });

  it('a JSON body over BODY_LIMIT_BYTES, with Content-Length and chunked', async () => {
    for (const chunked of [false, true]) {
      const outcome = await sendWhileReading(`${PREFIX}/notes/live`, {
        bytes: 8_000_000,
        chunked,
        headers: { 'x-api-key': keys.editor, 'content-type': 'application/json' },
        head: Buffer.from('{"name":"'),
      });
      expectReadable(outcome, 413, 'PAYLOAD_TOO_LARGE');
    }
  });

  it('a client that never stops sending is cut off after the lingering budget of bytes', async () => {
    const outcome = await sendRegardless(`${PREFIX}/notes/${await liveNote()}/parts/1`, part, 0);
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.answer.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(outcome.answer.slice(outcome.answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'AUDIO_TOO_LARGE' });
    // The limit, then at most the budget, plus what the two sockets' buffers held.
    expect(outcome.sent).toBeGreaterThan(PART_MAX_BYTES + LINGER_MAX_BYTES);
    expect(outcome.sent).toBeLessThan(PART_MAX_BYTES + LINGER_MAX_BYTES + 16 * 1024 * 1024);
  }, 60_000);

  it('a client that trickles forever is cut off after the lingering budget of time', async () => {
    const outcome = await sendRegardless(
      `${PREFIX}/notes/${await liveNote()}/parts/1`,
      { ...part, 'content-length': String(THIRTY_MB) },
      50,
    );
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    // Cut by time, long before the budget of bytes: a loose bound on when (the machine may be busy).
    expect(outcome.sent).toBeLessThan(LINGER_MAX_BYTES);
    expect(outcome.afterAnswerMs).toBeGreaterThanOrEqual(LINGER_MAX_MS - 100);
    expect(outcome.afterAnswerMs).toBeLessThan(LINGER_MAX_MS + 15_000);
  }, 60_000);

  it.runIf(existsSync('/usr/bin/curl'))('curl -T of a 30 MB part prints the 413', async () => {
    const file = path.join(t.config.DATA_DIR, 'thirty-mb.bin');
    writeFileSync(file, Buffer.alloc(THIRTY_MB, 0x55));
    const url = `http://127.0.0.1:${port}${PREFIX}/notes/${await liveNote()}/parts/1`;
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        'curl',
        ['-sS', '-T', file, '-H', `x-api-key: ${keys.editor}`, '-H', 'content-type: application/octet-stream', '-w', '\n%{http_code}', url],
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message} ${stderr}`)) : resolve(stdout)),
      ),
    );
    const [body, status] = [output.slice(0, output.lastIndexOf('\n')), output.slice(output.lastIndexOf('\n') + 1)];
    expect(status).toBe('413');
    expect(JSON.parse(body)).toMatchObject({ code: 'AUDIO_TOO_LARGE' });
  });

  it('leaves no temporary file behind', () => {
    expect(filesUnder(path.join(t.config.DATA_DIR, 'tmp'))).toEqual([]);
  });
});
