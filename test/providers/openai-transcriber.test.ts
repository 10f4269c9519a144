import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/providers/provider-error.ts';
import { createOpenAiTranscriber } from '../../src/providers/transcription/openai.ts';
import type { TranscriptionInput } from '../../src/providers/transcription/port.ts';
import { type FakeServer, formData, json, startFakeServer } from './fake-openai-server.ts';

const API_KEY = 'sk-test-7f3a9c1e5b2d4f6a8c0e';
const audioPath = new URL('../fixtures/audio/consultation.mp3', import.meta.url);
const audioBytes = readFileSync(audioPath);

const server: FakeServer = await startFakeServer();
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.onFirstBodyBytes = undefined;
});

let opened = 0;
function fixtureInput(overrides: Partial<TranscriptionInput> = {}): TranscriptionInput {
  return {
    openAudio: () => {
      opened++;
      return createReadStream(audioPath);
    },
    fileName: 'Consulta do Thor.mp3',
    format: 'mp3',
    contentType: 'audio/mpeg',
    sizeBytes: statSync(audioPath).size,
    durationSeconds: 23.7,
    sha256: createHash('sha256').update(audioBytes).digest('hex'),
    ...overrides,
  };
}

const transcriber = (options: { apiKey?: string; timeoutMs?: number } = { apiKey: API_KEY }) =>
  createOpenAiTranscriber({ baseUrl: server.baseUrl, apiKey: options.apiKey, model: 'whisper-1', timeoutMs: options.timeoutMs ?? 5_000 });
const signal = () => new AbortController().signal;

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  const providerError = error as ProviderError;
  // Whatever went wrong, the key never shows.
  expect(`${providerError.message} ${String(providerError.cause)}`).not.toContain(API_KEY);
  return providerError;
}

/** The one request the server saw: OpenAI's multipart form with our fields and the audio whole. */
async function expectUpload(expected: { fileName: string; type: string; bytes: Buffer }) {
  const [request] = server.requests;
  expect(request).toMatchObject({ method: 'POST', path: '/v1/audio/transcriptions' });
  expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
  expect(request!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
  expect(Number(request!.headers['content-length'])).toBe(request!.body.length);
  const form = await formData(request!);
  expect(form.get('model')).toBe('whisper-1');
  expect(form.get('language')).toBe('pt');
  expect(form.get('response_format')).toBe('verbose_json');
  const file = form.get('file') as File;
  expect(file.name).toBe(expected.fileName);
  expect(file.type).toBe(expected.type);
  expect(Buffer.from(await file.arrayBuffer()).equals(expected.bytes)).toBe(true);
}

const verbose = {
  task: 'transcribe',
  language: 'portuguese',
  duration: 23.67,
  text: ' Anamnese: tutor relata vômito. Exame físico: temperatura 39.',
  segments: [
    { id: 0, seek: 0, start: 0, end: 3.2, text: ' Anamnese: tutor relata vômito.', avg_logprob: -0.2 },
    { id: 1, seek: 0, start: 3.2, end: 6.9, text: ' Exame físico: temperatura 39.', avg_logprob: -0.3 },
  ],
};

describe('openai transcriber', () => {
  it('posts the audio as multipart with model, language, verbose_json and the bearer key, and maps segments', async () => {
    server.handle((_request, response) => json(response, 200, verbose));
    const transcript = await transcriber().transcribe(fixtureInput(), signal());

    expect(server.requests).toHaveLength(1);
    await expectUpload({ fileName: 'audio.mp3', type: 'audio/mpeg', bytes: audioBytes });

    expect(transcript).toEqual({
      text: 'Anamnese: tutor relata vômito. Exame físico: temperatura 39.',
      language: 'pt',
      durationSeconds: 23.67,
      segments: [
        { start: 0, end: 3.2, text: 'Anamnese: tutor relata vômito.' },
        { start: 3.2, end: 6.9, text: 'Exame físico: temperatura 39.' },
      ],
      provider: 'openai',
      model: 'whisper-1',
    });
  });

  it('sends no authorization header without a key, and accepts a base URL with a trailing slash', async () => {
    server.handle((_request, response) => json(response, 200, { ...verbose, language: 'pt' }));
    const noKey = createOpenAiTranscriber({ baseUrl: `${server.baseUrl}/`, model: 'small', language: 'pt', timeoutMs: 5_000 });
    await noKey.transcribe(fixtureInput(), signal());
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(server.requests[0]!.path).toBe('/v1/audio/transcriptions');
  });

  it('streams the audio: the server sees bytes before the audio has been read to the end', async () => {
    server.handle((_request, response) => json(response, 200, { text: 'ok' }));
    const chunk = Buffer.alloc(64 * 1024, 7);
    const serverHasBytes = new Promise<void>((resolve) => {
      server.onFirstBodyBytes = resolve;
    });
    async function* slowAudio() {
      for (let i = 0; i < 64; i++) {
        // Halfway through, wait for the server: a client that buffered the whole body would hang here.
        if (i === 32) await serverHasBytes;
        yield chunk;
      }
    }
    const input = fixtureInput({
      openAudio: () => Readable.from(slowAudio()),
      sizeBytes: 64 * chunk.length,
      format: 'wav',
      contentType: 'audio/wav',
    });
    await transcriber({ apiKey: API_KEY, timeoutMs: 5_000 }).transcribe(input, signal());
    expect(Number(server.requests[0]!.headers['content-length'])).toBe(server.requests[0]!.body.length);
    expect(server.requests[0]!.body.length).toBeGreaterThan(64 * chunk.length);
  });

  it('falls back to json when the server rejects verbose_json, reopening the audio', async () => {
    server.handle((_request, response, index) =>
      index === 0
        ? json(response, 400, {
            error: { message: "response_format 'verbose_json' is not supported by this model", param: 'response_format' },
          })
        : json(response, 200, { text: ' Só texto, sem segmentos. ' }),
    );
    opened = 0;
    const transcript = await transcriber().transcribe(fixtureInput(), signal());
    expect(server.requests).toHaveLength(2);
    expect((await formData(server.requests[1]!)).get('response_format')).toBe('json');
    expect(opened).toBe(2);
    expect(transcript).toMatchObject({ text: 'Só texto, sem segmentos.', segments: [], language: 'pt', durationSeconds: 23.7 });
  });

  it('asks for json at once after the server has refused verbose_json (chunks are not uploaded twice)', async () => {
    server.handle((request, response) =>
      String(request.body).includes('verbose_json')
        ? json(response, 400, { error: { message: "response_format 'verbose_json' is not supported", param: 'response_format' } })
        : json(response, 200, { text: 'texto' }),
    );
    const once = transcriber();
    await once.transcribe(fixtureInput(), signal());
    await once.transcribe(fixtureInput(), signal());
    expect(server.requests).toHaveLength(3);
    expect((await formData(server.requests[2]!)).get('response_format')).toBe('json');
  });

  it('asks for diarized_json with chunking_strategy=auto, and keeps speakers on segments and in the text', async () => {
    server.handle((_request, response) =>
      json(response, 200, {
        text: 'Bom dia. Bom dia, doutora. Ele vomitou.',
        duration: 23.7,
        segments: [
          { type: 'transcript.text.segment', id: 'seg_0', start: 0, end: 1.2, text: 'Bom dia.', speaker: 'A' },
          { type: 'transcript.text.segment', id: 'seg_1', start: 1.4, end: 2.5, text: 'Bom dia, doutora.', speaker: 'B' },
          { type: 'transcript.text.segment', id: 'seg_2', start: 2.6, end: 3.9, text: 'Ele vomitou.', speaker: 'B' },
        ],
      }),
    );
    const diarizing = createOpenAiTranscriber({
      baseUrl: server.baseUrl,
      model: 'gpt-4o-transcribe-diarize',
      timeoutMs: 5_000,
      diarize: true,
    });
    const transcript = await diarizing.transcribe(fixtureInput(), signal());
    const form = await formData(server.requests[0]!);
    expect(form.get('response_format')).toBe('diarized_json');
    expect(form.get('chunking_strategy')).toBe('auto');
    expect(transcript.segments.map((segment) => segment.speaker)).toEqual(['A', 'B', 'B']);
    expect(transcript.text).toBe('A: Bom dia.\nB: Bom dia, doutora. Ele vomitou.');
  });

  it.each([
    [429, 'TRANSCRIPTION_RATE_LIMITED'],
    [500, 'TRANSCRIPTION_UNAVAILABLE'],
    [503, 'TRANSCRIPTION_UNAVAILABLE'],
    [408, 'TRANSCRIPTION_TIMEOUT'],
  ])('HTTP %i is retryable (%s)', async (status, code) => {
    server.handle((_request, response) =>
      json(response, status, { error: { message: `busy, key was Bearer ${API_KEY}` } }, { 'retry-after': '7' }),
    );
    const error = await failure(transcriber().transcribe(fixtureInput(), signal()));
    expect(error).toMatchObject({ code, retryable: true });
    expect(server.requests).toHaveLength(1);
    if (status === 429) expect(error.message).toContain('retry after 7');
  });

  it.each([400, 401, 403, 404, 413, 422])('HTTP %i is final (TRANSCRIPTION_REJECTED), and an echoed key is redacted', async (status) => {
    server.handle((_request, response) => json(response, status, { error: { message: `Incorrect API key provided: ${API_KEY}` } }));
    const error = await failure(transcriber().transcribe(fixtureInput(), signal()));
    expect(error).toMatchObject({ code: 'TRANSCRIPTION_REJECTED', retryable: false });
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain('[redacted]');
    expect(server.requests).toHaveLength(1);
  });

  it('times out (retryable) when the server does not answer', async () => {
    server.handle(() => {}); // never answers
    const started = Date.now();
    const error = await failure(transcriber({ apiKey: API_KEY, timeoutMs: 300 }).transcribe(fixtureInput(), signal()));
    expect(error).toMatchObject({ code: 'TRANSCRIPTION_TIMEOUT', retryable: true });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('reports an unreachable server as retryable', async () => {
    const down = createOpenAiTranscriber({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: API_KEY, model: 'whisper-1', timeoutMs: 2_000 });
    const error = await failure(down.transcribe(fixtureInput(), signal()));
    expect(error).toMatchObject({ code: 'TRANSCRIPTION_UNAVAILABLE', retryable: true });
  });

  it('stops when the caller aborts, and releases the audio stream', async () => {
    server.handle(() => {});
    const controller = new AbortController();
    let stream: Readable | undefined;
    const input = fixtureInput({
      openAudio: () => {
        stream = Readable.from(
          (async function* () {
            yield Buffer.alloc(10);
            await new Promise(() => {});
          })(),
        );
        return stream;
      },
      sizeBytes: 1_000,
    });
    const pending = transcriber({ apiKey: API_KEY, timeoutMs: 10_000 }).transcribe(input, controller.signal);
    setTimeout(() => controller.abort(), 100);
    const error = await failure(pending);
    expect(error.retryable).toBe(true);
    expect(error.code).not.toBe('TRANSCRIPTION_TIMEOUT');
    await expect.poll(() => stream?.destroyed).toBe(true);
  });

  it('rejects an answer that is not a transcript (non-retryable)', async () => {
    server.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>proxy login</html>');
    });
    const error = await failure(transcriber().transcribe(fixtureInput(), signal()));
    expect(error).toMatchObject({ code: 'TRANSCRIPTION_INVALID_RESPONSE', retryable: false });
  });

  it('refuses audio whose size differs from the recorded one (non-retryable)', async () => {
    server.handle((_request, response) => json(response, 200, verbose));
    const error = await failure(transcriber().transcribe(fixtureInput({ sizeBytes: audioBytes.length + 10 }), signal()));
    expect(error).toMatchObject({ code: 'TRANSCRIPTION_AUDIO_UNREADABLE', retryable: false });
  });
});

describe('openai transcriber, audio in a local file (the chunks of a long note)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-openai-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Several times the upload's 256 KiB buffer, and not a multiple of it: a buffer reused before
  // the socket took its bytes would corrupt the body.
  const chunkBytes = randomBytes(3 * 256 * 1024 + 12_345);
  const chunkFile = path.join(dir, 'chunk-0.wav');
  writeFileSync(chunkFile, chunkBytes);
  const fileInput = (overrides: Partial<TranscriptionInput> = {}) =>
    fixtureInput({
      audioFile: chunkFile,
      openAudio: () => {
        throw new Error('the file is read from disk, not through openAudio');
      },
      sizeBytes: chunkBytes.length,
      format: 'wav',
      contentType: 'audio/wav',
      ...overrides,
    });

  it('uploads the file whole, as the same multipart request with its length up front', async () => {
    server.handle((_request, response) => json(response, 200, verbose));
    const transcript = await transcriber().transcribe(fileInput(), signal());

    expect(server.requests[0]!.headers['transfer-encoding']).toBeUndefined();
    await expectUpload({ fileName: 'audio.wav', type: 'audio/wav', bytes: chunkBytes });
    expect(transcript.segments).toHaveLength(2);
  });

  it('maps answers and failures as for a stream: 413, timeout, abort, unreachable server', async () => {
    server.handle((_request, response) => json(response, 413, { error: { message: 'Maximum content size limit exceeded' } }));
    expect(await failure(transcriber().transcribe(fileInput(), signal()))).toMatchObject({
      code: 'TRANSCRIPTION_REJECTED',
      retryable: false,
      message: expect.stringContaining('HTTP 413'),
    });

    server.handle(() => {}); // never answers
    const timedOut = await failure(transcriber({ apiKey: API_KEY, timeoutMs: 300 }).transcribe(fileInput(), signal()));
    expect(timedOut).toMatchObject({ code: 'TRANSCRIPTION_TIMEOUT', retryable: true });

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const aborted = await failure(transcriber({ apiKey: API_KEY, timeoutMs: 10_000 }).transcribe(fileInput(), controller.signal));
    expect(aborted).toMatchObject({ code: 'TRANSCRIPTION_UNAVAILABLE', retryable: true });

    const down = createOpenAiTranscriber({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: API_KEY, model: 'whisper-1', timeoutMs: 2_000 });
    expect(await failure(down.transcribe(fileInput(), signal()))).toMatchObject({ code: 'TRANSCRIPTION_UNAVAILABLE', retryable: true });
  });

  it('refuses a file whose size differs from the recorded one (final) and reports a missing file (retryable)', async () => {
    server.handle((_request, response) => json(response, 200, verbose));
    for (const sizeBytes of [chunkBytes.length + 10, chunkBytes.length - 10]) {
      const error = await failure(transcriber().transcribe(fileInput({ sizeBytes }), signal()));
      expect(error).toMatchObject({ code: 'TRANSCRIPTION_AUDIO_UNREADABLE', retryable: false });
    }
    const missing = await failure(transcriber().transcribe(fileInput({ audioFile: path.join(dir, 'gone.wav') }), signal()));
    expect(missing).toMatchObject({ code: 'TRANSCRIPTION_AUDIO_UNREADABLE', retryable: true });
  });
});
