import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { toneClip, toneParts } from '../helpers/live-parts.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { startFakeSpeechServer } from '../providers/fake-speech-server.ts';
import type { ToneFormat } from '../providers/tone-audio.ts';

// Live consultations against a fake OpenAI-compatible server that hears the tone audio (second k
// says "wk") and takes time in proportion to the audio it receives: the parts joined in order must
// come back as w0 ... w(n-1), every second once, in order, whatever order the parts came in. Like a
// real model, the server also names a word cut by the start or end of a request's audio
// (`cutWords`), so every cut an overlap or a piece makes is answered on both of its sides.

const server = await startFakeSpeechServer({ msPerAudioSecond: 3, cutWords: true });
afterAll(() => server.close());
const { app, db } = await createTestApp({
  startWorkers: true,
  env: { TRANSCRIPTION_PROVIDER: 'openai', TRANSCRIPTION_BASE_URL: server.baseUrl, TRANSCRIPTION_RETRY_DELAY_SECONDS: '1' },
});
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra Clínica');

const createLive = async (body: object = { name: 'Thor' }, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `${PREFIX}/notes/live`, payload: body, headers: { ...as(clinic.editor), ...headers } });
const putPart = (id: string, n: number, bytes: Buffer, key = clinic.editor, contentType = 'application/octet-stream') =>
  app.inject({
    method: 'PUT',
    url: `${PREFIX}/notes/${id}/parts/${n}`,
    payload: bytes,
    headers: { ...as(key), 'content-type': contentType },
  });
const complete = (id: string, parts: number, key = clinic.editor) =>
  app.inject({ method: 'POST', url: `${PREFIX}/notes/${id}/complete`, payload: { parts }, headers: as(key) });
const read = async (id: string, what = '') =>
  (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}${what}`, headers: as(clinic.viewer) })).json();
const settled = (id: string) =>
  eventually(
    async () => {
      const status = (await read(id, '/status')).status;
      return status === 'completed' || status === 'failed' ? status : null;
    },
    240_000,
    200,
  );
const words = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `w${from + k}`);

// 60 parts of about 30 s (1800 s): in blocks of one format (mp3, m4a, aac, wav), boundaries at
// 30.5 and 29.5 s alternately, so inside a block every other boundary cuts a second's word in two
// (whole only in the overlap sent with the next part). Where the format changes there is no
// overlap (docs/notes-live.md): those boundaries fall in the silence after a second's word, as a
// recorder switching encoders would leave them.
const BLOCKS: [ToneFormat, number][] = [
  ['mp3', 16],
  ['m4a', 14],
  ['aac', 16],
  ['wav', 14],
];
const formatOf = (index: number) => {
  let at = index;
  for (const [format, count] of BLOCKS) {
    if (at < count) return format;
    at -= count;
  }
  throw new Error('no block');
};
const switches = new Set([16, 30, 46]);
const boundaries = Array.from({ length: 61 }, (_, i) => 30 * i + (switches.has(i) ? 0.93 : (i % 2) * 0.5));
const parts = await toneParts(boundaries, formatOf, 1800);
const plan = parts.map((_, i) => i + 1);

describe('a live note', () => {
  it('is created open, with its capture on the note and its status, and honours Idempotency-Key', async () => {
    const first = await createLive({ patient_name: 'Mel', owner_name: 'Ana' }, { 'idempotency-key': 'live-1' });
    expect(first.statusCode, first.body).toBe(201);
    const data = first.json().data;
    expect(data).toMatchObject({ name: 'Mel', transcription_status: 'pending', capture: { state: 'open', parts: 0, seconds: 0 } });
    expect(Object.keys(data)).toEqual(['id', 'name', 'transcription_status', 'capture', 'created_at']);
    const again = await createLive({ patient_name: 'Mel', owner_name: 'Ana' }, { 'idempotency-key': 'live-1' });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect((await read(data.id)).data).toMatchObject({
      capture: { state: 'open', parts: 0, seconds: 0 },
      metadata: [{ key: 'owner_name', value: 'Ana' }],
    });
    expect(await read(data.id, '/status')).toEqual({ status: 'pending', valid: true, capture: { state: 'open', parts: 0, seconds: 0 } });
    const invalid = await createLive({ gender: 'male' });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().details).toEqual({ field: 'name', reason: expect.any(String) });
  });

  it('shows its capture in the list as on the note', async () => {
    const live = (await createLive()).json().data.id;
    const note = (await read(live)).data;
    expect(note.capture).toBeDefined();
    const listed = (await app.inject({ method: 'GET', url: `${PREFIX}/notes`, headers: as(clinic.viewer) })).json().data;
    expect(listed.find((item: { id: string }) => item.id === live).capture).toEqual({ state: 'open', parts: 0, seconds: 0 });
  });

  it('collects 60 parts of 30 s in four formats, out of order and resent, and completes with every second once, in order', async () => {
    const id = (await createLive({ name: 'Longa' })).json().data.id;
    // Sent in a shuffled order within windows of five, as a client resending after a drop would; two are sent twice.
    const order = [...plan].sort((a, b) => Math.floor((a - 1) / 5) - Math.floor((b - 1) / 5) || ((a * 7) % 5) - ((b * 7) % 5));
    const held: number[] = [];
    for (const n of order.filter((n) => n !== 42)) {
      const response = await putPart(id, n, parts[n - 1]!, clinic.editor, n % 3 === 0 ? 'audio/whatever' : 'application/octet-stream');
      expect(response.statusCode, `part ${n}: ${response.body}`).toBe(201);
      expect(response.json().data).toMatchObject({
        note_id: id,
        part: n,
        bytes: parts[n - 1]!.length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      held.push(n);
      if (n === 7 || n === 30) {
        const replay = await putPart(id, n, parts[n - 1]!);
        expect(replay.statusCode).toBe(200);
        expect(replay.json()).toEqual(response.json());
      }
    }
    const conflict = await putPart(id, 7, parts[7]!);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().code).toBe('PART_CONFLICT');

    const missing = await complete(id, 60);
    expect(missing.statusCode).toBe(409);
    expect(missing.json()).toMatchObject({ code: 'PARTS_MISSING', details: { missing: [42] } });
    const listing = (await read(id, '/parts')) as { data: { part: number }[]; meta: { state: string; parts: number } };
    expect(listing.data.map((part) => part.part)).toEqual(plan.filter((n) => n !== 42));
    expect(listing.meta).toMatchObject({ state: 'open', parts: 59 });
    expect((await read(id, '/status')).capture).toMatchObject({ state: 'open', parts: 59 });

    expect((await putPart(id, 42, parts[41]!)).statusCode).toBe(201);
    const unexpected = await complete(id, 59);
    expect(unexpected.json()).toMatchObject({ code: 'PARTS_UNEXPECTED', details: { unexpected: [60] } });
    // Parts were sent to the server while the "visit" went on, before complete.
    expect(server.requests.length).toBeGreaterThan(30);

    const done = await complete(id, 60);
    expect(done.statusCode, done.body).toBe(202);
    expect(done.json()).toEqual({ status: 'success', data: { id, transcription_status: 'pending' } });
    expect((await complete(id, 60)).statusCode).toBe(202);
    expect((await complete(id, 61)).json().code).toBe('CAPTURE_CLOSED');
    expect((await putPart(id, 61, parts[0]!)).json().code).toBe('CAPTURE_CLOSED');
    expect((await putPart(id, 3, parts[2]!)).statusCode).toBe(200);

    expect(await settled(id)).toBe('completed');
    const transcript = (await read(id, '/transcription')).data;
    const heard: string[] = transcript.text.split(' ');
    // Every second once, in order: across every boundary inside a format, cut words included. Where
    // the format changes (no overlap) only the word at the change may be lost, never doubled.
    expect(new Set(heard).size).toBe(heard.length);
    expect(heard).toEqual(words(0, 1800).filter((word) => heard.includes(word)));
    const lost = words(0, 1800).filter((word) => !heard.includes(word));
    for (const word of lost)
      expect(
        [...switches].some((i) => Math.abs(boundaries[i]! - Number(word.slice(1)) - 0.5) < 1),
        word,
      ).toBe(true);
    expect(lost.length).toBeLessThanOrEqual(switches.size);
    expect(transcript.duration_seconds).toBeCloseTo(1800, -1);
    for (const segment of transcript.segments as { start: number; text: string }[]) {
      // Times are the recording's (the parts joined in order), within a codec's priming delay.
      expect(Math.abs(segment.start - Number(segment.text.slice(1))), `${segment.text} at ${segment.start}`).toBeLessThan(0.5);
    }
    const note = (await read(id)).data;
    expect(note.capture).toEqual({ state: 'closed', parts: 60, seconds: expect.closeTo(1800, 0) });
    expect(note.note_sections.length).toBeGreaterThan(0);
    expect(note.review_flags).toEqual([]);
    expect(await partTranscripts(id)).toBe(0);
  }, 300_000);

  it('joins the parts of one format into one recording once closed', async () => {
    const id = (await createLive({ name: 'Junta' })).json().data.id;
    const m4a = await toneParts([0, 30.5, 60, 91], () => 'm4a', 91);
    for (const [i, bytes] of m4a.entries()) expect((await putPart(id, i + 1, bytes)).statusCode).toBe(201);
    expect((await complete(id, 3)).statusCode).toBe(202);
    expect(await settled(id)).toBe('completed');
    expect((await read(id, '/transcription')).data.text.split(' ')).toEqual(words(0, 91));
    const row = await eventually(async () => {
      const result = (await db.database.db.execute(
        sql`select audio_key, audio_format, audio_bytes from notes where id = ${id}`,
      )) as unknown as {
        rows: { audio_key: string; audio_format: string; audio_bytes: number }[];
      };
      return result.rows[0]?.audio_key ? result.rows[0] : null;
    });
    expect(row.audio_format).toBe('m4a');
  }, 120_000);

  it('waits at completion for the part still at the server instead of sending it a second time', async () => {
    const id = (await createLive({ name: 'Espera' })).json().data.id;
    const wav = await toneParts([0, 20, 40], () => 'wav', 40);
    const before = server.requests.length;
    // Slow enough that part 2's own request is still running when `complete` arrives.
    server.msPerAudioSecond = 60;
    try {
      expect((await putPart(id, 1, wav[0]!)).statusCode).toBe(201);
      await eventually(async () => (server.requests.length > before ? true : null));
      expect((await putPart(id, 2, wav[1]!)).statusCode).toBe(201);
      expect((await complete(id, 2)).statusCode).toBe(202);
      expect(await settled(id)).toBe('completed');
    } finally {
      server.msPerAudioSecond = 3;
    }
    expect((await read(id, '/transcription')).data.text.split(' ')).toEqual(words(0, 40));
    // Each part sent once: none sent again by the note's job while its own job was at the server.
    // Part 1 (20 s) is one request; part 2 with the overlap before it (16-40 s) is longer than
    // LIVE_PART_REQUEST_SECONDS (20), so it goes as two overlapping pieces at the same time.
    const sent = server.requests.slice(before);
    const ranges = sent.map((request) => [request.seconds[0], request.seconds.at(-1)]);
    expect(ranges.sort((a, b) => a[0]! - b[0]!)).toEqual([
      [0, 19],
      [16, 29],
      [26, 39],
    ]);
    const pieces = sent.filter((request) => request.seconds[0]! >= 16);
    expect(Math.max(...pieces.map((piece) => piece.receivedAt))).toBeLessThan(Math.min(...pieces.map((piece) => piece.at)));
  }, 120_000);

  it('refuses unreadable, too short and oversized parts, and another clinic', async () => {
    const id = (await createLive()).json().data.id;
    const text = await putPart(id, 1, Buffer.from('not audio at all, just text'), clinic.editor, 'text/plain');
    expect(text.statusCode).toBe(400);
    expect(text.json()).toMatchObject({ code: 'INVALID_AUDIO_FORMAT', details: { received: 'text' } });
    const tooShort = await putPart(id, 1, await toneClip('mp3', 0, 0.5));
    expect(tooShort.statusCode).toBe(422);
    expect(tooShort.json()).toMatchObject({ code: 'AUDIO_DURATION_INVALID', details: { min_duration: 1, max_duration: 600 } });
    const huge = await putPart(id, 1, Buffer.alloc(25_000_001));
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ code: 'AUDIO_TOO_LARGE', details: { max_size: 25_000_000 } });
    expect((await putPart(id, 1, await toneClip('mp3', 0, 601))).json().code).toBe('AUDIO_DURATION_INVALID');
    const empty = await app.inject({ method: 'PUT', url: `${PREFIX}/notes/${id}/parts/1`, headers: as(clinic.editor) });
    expect(empty.json()).toMatchObject({ code: 'INVALID_AUDIO_FORMAT', details: { received: 'empty' } });
    expect((await putPart(id, 1001, parts[0]!)).statusCode).toBe(400);
    expect((await putPart(id, 1, parts[0]!, other.admin)).json().code).toBe('FORBIDDEN_TENANT');
    expect((await complete(id, 1, other.admin)).json().code).toBe('FORBIDDEN_TENANT');
    expect((await putPart(id, 1, parts[0]!, clinic.viewer)).json().code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await read(id, '/parts')).meta).toEqual({ state: 'open', parts: 0, seconds: 0 });
    expect(await partFiles(id)).toBe(0);
  });
});

async function partTranscripts(id: string): Promise<number> {
  const result = await db.database.db.execute(
    sql`select count(*)::int as n from note_parts where note_id = ${id} and transcript is not null`,
  );
  return Number((result as unknown as { rows: { n: number }[] }).rows[0]!.n);
}

async function partFiles(id: string): Promise<number> {
  const result = await db.database.db.execute(sql`select count(*)::int as n from note_parts where note_id = ${id}`);
  return Number((result as unknown as { rows: { n: number }[] }).rows[0]!.n);
}
