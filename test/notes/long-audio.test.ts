import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { filesUnder, postNote, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { startFakeSpeechServer } from '../providers/fake-speech-server.ts';
import { type ToneFormat, toneFile } from '../providers/tone-audio.ts';

// Long consultations through a server with OpenAI's limits (25 MiB, 1400 s per request): the audio
// is cut into chunks, sent in parallel and stitched. The fake answers each chunk with one word per
// second it hears ("w17"), so the stitched transcript must be exactly w0 ... w(n-1).

const server = await startFakeSpeechServer();
afterAll(() => server.close());
const { app, db, config } = await createTestApp({
  startWorkers: true,
  env: {
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: server.baseUrl,
    TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
  },
});
const clinic = await createClinicWithKeys(db.database);
const tempDir = path.join(config.DATA_DIR, 'tmp', 'transcription');

async function upload(format: ToneFormat, seconds: number, name = `Long ${format}`): Promise<string> {
  const file = await toneFile(format, seconds);
  return uploadNote(app, clinic.editor, { name }, { bytes: readFileSync(file), fileName: `consultation.${format}` });
}

/** Polls until settled; returns the progress values seen on the way. */
async function settle(id: string, timeoutMs = 240_000): Promise<{ status: string; progress: number[] }> {
  const deadline = Date.now() + timeoutMs;
  const progress: number[] = [];
  for (;;) {
    const body = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/status`, headers: { 'x-api-key': clinic.viewer } })).json();
    if (body.progress !== undefined) progress.push(body.progress);
    if (body.status === 'completed' || body.status === 'failed') return { status: body.status, progress };
    if (Date.now() > deadline) throw new Error(`note ${id} still ${body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const read = async (id: string, what = '') =>
  (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}${what}`, headers: { 'x-api-key': clinic.viewer } })).json().data;

// Encoders pad the end a little: a "60-minute" file a few seconds short stays under the 3600 s upload limit.
const HOUR = 3595;

const words = (count: number) => Array.from({ length: count }, (_, k) => `w${k}`);

async function expectWholeTranscript(id: string, seconds: number) {
  const transcript = await read(id, '/transcription');
  expect(transcript.text.split(' ')).toEqual(words(seconds));
  expect(transcript.duration_seconds).toBeCloseTo(seconds, 0);
  const segments = transcript.segments as { start: number; end: number; text: string }[];
  expect(segments.map((segment) => segment.text)).toEqual(words(seconds));
  for (const [k, segment] of segments.entries()) {
    // Times are the whole audio's (within a codec's priming delay), and never go backwards.
    expect(Math.abs(segment.start - k), `w${k} at ${segment.start}`).toBeLessThan(0.25);
    if (k > 0) expect(segment.start).toBeGreaterThanOrEqual(segments[k - 1]!.end);
  }
  const note = await read(id);
  expect(note.note_sections.length).toBeGreaterThan(0);
  expect(filesUnder(tempDir)).toEqual([]);
  expect(await chunkRows(id)).toBe(0);
}

async function chunkRows(id: string): Promise<number> {
  const result = await db.database.db.execute(sql`select count(*)::int as n from note_transcript_chunks where note_id = ${id}`);
  return Number((result as unknown as { rows: { n: number }[] }).rows[0]!.n);
}

const requestsSince = (from: number) => server.requests.slice(from);

describe('long audio through a server with request limits', () => {
  it('documents progress on the status result in the OpenAPI', async () => {
    const document = (await app.inject({ method: 'GET', url: '/notes/v1/openapi.json' })).json();
    const status = document.components.schemas.StatusResult;
    expect(status.required).toEqual(['status', 'valid']);
    expect(status.properties.progress).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
  });

  it('sends a short file in one request', async () => {
    const before = server.requests.length;
    const id = await uploadNote(app, clinic.editor, { name: 'Short' }, 'consultation.mp3');
    expect((await settle(id)).status).toBe('completed');
    expect(requestsSince(before)).toHaveLength(1);
  });

  it('transcribes a 50-minute WAV (~96 MB) with every word once, in order', async () => {
    const before = server.requests.length;
    const id = await upload('wav', 3000);
    const { status, progress } = await settle(id);
    expect(status).toBe('completed');
    const sent = requestsSince(before);
    expect(sent.every((request) => request.status === 200 && request.bytes <= 25 * 1024 * 1024)).toBe(true);
    expect(sent.length).toBeGreaterThanOrEqual(4);
    expect(progress.every((value) => value >= 0 && value <= 1)).toBe(true);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    await expectWholeTranscript(id, 3000);
  }, 300_000);

  it.each(['mp3', 'm4a', 'aac'] as const)(
    'transcribes a 60-minute %s with every word once, in order',
    async (format) => {
      const before = server.requests.length;
      const id = await upload(format, HOUR);
      expect((await settle(id)).status).toBe('completed');
      const sent = requestsSince(before);
      expect(sent.every((request) => request.status === 200)).toBe(true);
      expect(sent.length).toBeGreaterThanOrEqual(3);
      await expectWholeTranscript(id, HOUR);
    },
    300_000,
  );

  it('retries a chunk that fails twice alone, then completes', async () => {
    let failures = 0;
    server.failWith(({ seconds }) => (seconds.includes(1000) && failures++ < 2 ? 503 : null));
    const before = server.requests.length;
    const id = await upload('mp3', HOUR, 'Flaky chunk');
    try {
      expect((await settle(id)).status).toBe('completed');
    } finally {
      server.failWith(null);
    }
    const sent = requestsSince(before);
    const flaky = sent.filter((request) => request.seconds.includes(1000));
    expect(flaky.map((request) => request.status)).toEqual([503, 503, 200]);
    // Every other chunk went once.
    const others = sent.filter((request) => !request.seconds.includes(1000));
    expect(new Set(others.map((request) => request.seconds[0])).size).toBe(others.length);
    expect(others.every((request) => request.status === 200)).toBe(true);
    await expectWholeTranscript(id, HOUR);
  }, 300_000);

  it('fails the note naming the chunk that keeps failing, leaves no file, and a retry sends only the missing chunks', async () => {
    // The failure arrives after the other chunks' transcripts, so they are stored first.
    server.failWith(({ seconds }) => (seconds.includes(2000) ? 422 : null));
    server.failureDelayMs = 1_500;
    const id = await upload('mp3', HOUR, 'Broken chunk');
    try {
      expect((await settle(id)).status).toBe('failed');
    } finally {
      server.failWith(null);
      server.failureDelayMs = 0;
    }
    const note = await read(id);
    expect(note.failure.code).toBe('TRANSCRIPTION_REJECTED');
    expect(note.failure.message).toMatch(/^Chunk \d of 6 \(\d+:\d\d-\d+:\d\d of the audio\): The transcription server rejected/);
    expect(filesUnder(tempDir)).toEqual([]);

    const rows = (
      (await db.database.db.execute(
        sql`select start_seconds, end_seconds, transcript is not null as done from note_transcript_chunks where note_id = ${id}`,
      )) as unknown as { rows: { start_seconds: number; end_seconds: number; done: boolean }[] }
    ).rows;
    expect(rows).toHaveLength(6);
    // A second only the chunk holds (its middle, away from the overlaps).
    const middle = (row: { start_seconds: number; end_seconds: number }) => Math.floor((row.start_seconds + row.end_seconds) / 2);
    const done = rows.filter((row) => row.done).map(middle);
    const missing = rows.filter((row) => !row.done).map(middle);
    expect(done.length).toBeGreaterThan(0);
    expect(missing.length).toBeGreaterThan(0);

    const retried = server.requests.length;
    const retry = await app.inject({ method: 'POST', url: `/notes/v1/notes/${id}/retry`, headers: { 'x-api-key': clinic.editor } });
    expect(retry.statusCode, retry.body).toBe(202);
    expect((await settle(id)).status).toBe('completed');
    const resent = requestsSince(retried);
    for (const second of done) expect(resent.some((request) => request.seconds.includes(second))).toBe(false);
    for (const second of missing) expect(resent.some((request) => request.seconds.includes(second) && request.status === 200)).toBe(true);
    await expectWholeTranscript(id, HOUR);
  }, 300_000);
});

describe('the same server without request limits configured (what the limits prevent)', async () => {
  const unlimited = await createTestApp({
    startWorkers: true,
    env: {
      TRANSCRIPTION_PROVIDER: 'openai',
      TRANSCRIPTION_BASE_URL: server.baseUrl,
      TRANSCRIPTION_MAX_REQUEST_BYTES: '0',
      TRANSCRIPTION_MAX_REQUEST_SECONDS: '0',
    },
  });
  const keys = await createClinicWithKeys(unlimited.db.database);

  it.each([
    ['wav', 3000, /HTTP 413\): Maximum content size limit \(26214400\) exceeded/],
    ['mp3', 1800, /HTTP 400\): audio duration [\d.]+ seconds is longer than 1400 seconds which is the maximum for this model/],
  ] as const)(
    'a %s of %i s in one request is refused by the fake',
    async (format, seconds, message) => {
      const file = await toneFile(format, seconds);
      const created = await postNote(unlimited.app, keys.editor, {
        audio: { bytes: readFileSync(file), fileName: `visit.${format}` },
        metadata: { name: 'Whole' },
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().data.id;
      expect(await waitUntilSettled(unlimited.app, keys.viewer, id, 60_000)).toBe('failed');
      const note = (
        await unlimited.app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: { 'x-api-key': keys.viewer } })
      ).json().data;
      expect(note.failure.code).toBe('TRANSCRIPTION_REJECTED');
      expect(note.failure.message).toMatch(message);
    },
    120_000,
  );
});
