// A local OpenAI-compatible speech-to-text server that listens to the tone audio of
// test/providers/tone-audio.ts: it answers each request with one word per second it hears
// ("w17" for second 17), timed within the request's audio, and refuses requests the way OpenAI
// does: 413 over the byte limit, 400 over the duration limit. With `cutWords` it also names a word
// cut by the audio's start or end, as a model completes the half word it heard. Latency can grow
// with the audio, like a real GPU server. Listens on 127.0.0.1 only.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { hearSeconds } from './tone-audio.ts';

export interface SpeechRequest {
  /** Bytes of the whole request body. */
  bytes: number;
  responseFormat: string;
  /** The seconds of the whole audio this request's audio holds (whole words only). */
  seconds: number[];
  /** The words cut by the audio's start or end that were answered too (`cutWords`). */
  cut: number[];
  status: number;
  /** When the answer was sent. */
  at: number;
  /** When the request arrived (a request of a worker killed mid-answer is recorded after it died). */
  receivedAt: number;
  /** The multipart `prompt` field as received; null when the request had none. */
  prompt: string | null;
}

export interface SpeechServerOptions {
  /** 413 above this many request bytes; default 25 MiB, as OpenAI. */
  maxBytes?: number;
  /** 400 above this much audio; default 1400 s, as OpenAI's gpt-4o-transcribe. */
  maxSeconds?: number;
  /** Answer after this many ms per second of audio received. */
  msPerAudioSecond?: number;
  /** And this many ms more per request (a server's fixed cost). */
  msPerRequest?: number;
  /**
   * Answer a word cut by the start or end of the request's audio too, whole and timed where its
   * half is, as a real model does (tone-audio.ts, HearOptions.cutWords); `requests[].seconds` still
   * lists whole words only. Off by default: a fragment is no word.
   */
  cutWords?: boolean;
}

/** Lets a test fail a request: return a status to answer with instead of a transcript. */
export type Failure = (request: { seconds: number[] }) => number | null;

export interface FakeSpeechServer {
  baseUrl: string;
  requests: SpeechRequest[];
  /** Latency per second of audio received; may be changed between requests. */
  msPerAudioSecond: number;
  /** How long a failure set with failWith takes to arrive (ms). */
  failureDelayMs: number;
  failWith(failure: Failure | null): void;
  close(): Promise<void>;
}

/** Who says second k in the test conversation: ten seconds each, in turn. */
export const trueSpeaker = (second: number) => (Math.floor(second / 10) % 2 === 0 ? 'vet' : 'tutor');

export async function startFakeSpeechServer(options: SpeechServerOptions = {}): Promise<FakeSpeechServer> {
  const maxBytes = options.maxBytes ?? 25 * 1024 * 1024;
  const maxSeconds = options.maxSeconds ?? 1400;
  const work = mkdtempSync(path.join(tmpdir(), 'vetflow-fake-speech-'));
  let failure: Failure | null = null;
  let counter = 0;
  const requests: SpeechRequest[] = [];

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const contentLength = Number(req.headers['content-length'] ?? 0);
    const receivedAt = Date.now();
    let prompt: string | null = null;
    const record = (status: number, seconds: number[], responseFormat = '', cut: number[] = []) =>
      requests.push({ bytes: contentLength, responseFormat, seconds, cut, status, at: Date.now(), receivedAt, prompt });
    if (contentLength > maxBytes) {
      req.resume();
      record(413, []);
      return json(res, 413, {
        error: { message: `Maximum content size limit (${maxBytes}) exceeded (${contentLength} bytes read)`, type: 'server_error' },
      });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
    const file = form.get('file') as File;
    const responseFormat = String(form.get('response_format') ?? 'json');
    prompt = form.has('prompt') ? String(form.get('prompt')) : null;
    const audioPath = path.join(work, `${++counter}-${file.name}`);
    writeFileSync(audioPath, Buffer.from(await file.arrayBuffer()));
    let heard: Awaited<ReturnType<typeof hearSeconds>>;
    try {
      heard = await hearSeconds(audioPath, { cutWords: options.cutWords ?? false });
    } catch {
      record(400, [], responseFormat);
      return json(res, 400, { error: { message: 'Audio file might be corrupted or unsupported', type: 'invalid_request_error' } });
    } finally {
      rmSync(audioPath, { force: true });
    }
    const seconds = heard.heard.filter((word) => !word.cut).map((word) => word.second);
    if (heard.durationSeconds > maxSeconds) {
      record(400, seconds, responseFormat);
      return json(res, 400, {
        error: {
          message: `audio duration ${heard.durationSeconds} seconds is longer than ${maxSeconds} seconds which is the maximum for this model`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_value',
        },
      });
    }
    const failed = failure?.({ seconds }) ?? null;
    if (failed) {
      if (fake.failureDelayMs) await sleep(fake.failureDelayMs);
      record(failed, seconds, responseFormat);
      return json(res, failed, { error: { message: 'the model is overloaded', type: 'server_error' } });
    }
    if (fake.msPerAudioSecond || options.msPerRequest)
      await sleep(heard.durationSeconds * fake.msPerAudioSecond + (options.msPerRequest ?? 0));
    // Speaker labels as a diarizing server gives them: per request, in order of first appearance.
    const labels = new Map<string, string>();
    const segments = heard.heard.map((word) => {
      const who = trueSpeaker(word.second);
      if (!labels.has(who)) labels.set(who, String.fromCharCode(65 + labels.size));
      return { start: word.start, end: word.end, text: `w${word.second}`, speaker: labels.get(who)! };
    });
    record(
      200,
      seconds,
      responseFormat,
      heard.heard.filter((word) => word.cut).map((word) => word.second),
    );
    const text = segments.map((segment) => segment.text).join(' ');
    if (responseFormat === 'diarized_json') {
      return json(res, 200, {
        task: 'transcribe',
        duration: heard.durationSeconds,
        text,
        segments: segments.map((segment, i) => ({ type: 'transcript.text.segment', id: `seg_${i}`, ...segment })),
      });
    }
    if (responseFormat === 'verbose_json') {
      return json(res, 200, {
        language: 'portuguese',
        duration: heard.durationSeconds,
        text,
        segments: segments.map(({ speaker: _speaker, ...segment }) => segment),
      });
    }
    return json(res, 200, { text });
  };
  // A client that dies mid-upload (a killed worker) aborts the body: drop that exchange quietly.
  const server = createServer((req, res) => {
    answer(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeSpeechServer = {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    msPerAudioSecond: options.msPerAudioSecond ?? 0,
    failureDelayMs: 0,
    failWith(next) {
      failure = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          rmSync(work, { recursive: true, force: true });
          resolve();
        });
      }),
  };
  return fake;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
