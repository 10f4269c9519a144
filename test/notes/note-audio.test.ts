import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRange } from '../../src/notes/recording/byte-range.ts';
import { findNote } from '../../src/notes/store/notes.repo.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { fixture, uploadNote } from '../helpers/uploads.ts';

// GET /notes/{id}/audio: the uploaded bytes, whole or by one byte range, as an <audio> element asks.

const { app, db, config } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');
const mp3 = fixture('consultation.mp3');
const size = mp3.length;
const noteId = await uploadNote(app, clinic.editor, { name: 'Áudio' });
const wavId = await uploadNote(app, clinic.editor, { name: 'Wav' }, 'consultation.wav');

const audio = (range?: string, key = clinic.viewer, id = noteId) =>
  app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/audio`, headers: { 'x-api-key': key, ...(range ? { range } : {}) } });
const historyOf = async (id: string) =>
  (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/history`, headers: { 'x-api-key': clinic.viewer } })).json().data as any[];

describe('GET /notes/{id}/audio', () => {
  it('answers the whole recording with its type, its length and Accept-Ranges', async () => {
    const response = await audio();
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'audio/mpeg',
      'accept-ranges': 'bytes',
      'content-length': String(size),
      'cache-control': 'private, no-store',
    });
    expect(response.rawPayload.equals(mp3)).toBe(true);
    const wav = await audio(undefined, clinic.viewer, wavId);
    expect(wav.headers['content-type']).toBe('audio/wav');
    expect(wav.rawPayload.equals(fixture('consultation.wav'))).toBe(true);
  });

  it.each([
    ['the first bytes', 'bytes=0-99', 0, 99],
    ['the middle', 'bytes=1000-4999', 1000, 4999],
    ['a suffix', 'bytes=-500', size - 500, size - 1],
    ['an open end', 'bytes=7000-', 7000, size - 1],
    ['an end past the file, cut to it', `bytes=10-${size + 1000}`, 10, size - 1],
    ['a suffix longer than the file', `bytes=-${size * 2}`, 0, size - 1],
    ['the last byte', `bytes=${size - 1}-${size - 1}`, size - 1, size - 1],
  ])('answers %s (%s) with 206 and exactly those bytes', async (_label, range, start, end) => {
    const response = await audio(range);
    expect(response.statusCode).toBe(206);
    expect(response.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
    expect(response.headers['content-length']).toBe(String(end - start + 1));
    expect(response.headers['accept-ranges']).toBe('bytes');
    expect(response.rawPayload.equals(mp3.subarray(start, end + 1))).toBe(true);
  });

  it.each([
    ['starting past the end', `bytes=${size}-`],
    ['far past the end', `bytes=${size + 10}-${size + 20}`],
    ['reversed', 'bytes=500-100'],
    ['malformed', 'bytes=abc'],
    ['an empty suffix', 'bytes=-0'],
    ['empty', 'bytes='],
  ])('refuses a range %s with 416 and Content-Range: bytes */size, recording nothing', async (_label, range) => {
    const before = (await historyOf(noteId)).length;
    const response = await audio(range);
    expect(response.statusCode).toBe(416);
    expect(response.headers['content-range']).toBe(`bytes */${size}`);
    expect(response.json()).toMatchObject({ error: 'range_not_satisfiable', code: 'RANGE_NOT_SATISFIABLE', details: { size } });
    expect((await historyOf(noteId)).length).toBe(before);
  });

  it('ignores a unit other than bytes and a set of several ranges (the whole file, 200)', async () => {
    for (const range of ['items=0-5', 'bytes=0-1,10-20']) {
      const response = await audio(range);
      expect(response.statusCode, range).toBe(200);
      expect(response.rawPayload.length).toBe(size);
    }
  });

  it('answers HEAD with the headers alone, and records no fetch', async () => {
    const before = (await historyOf(noteId)).length;
    const response = await app.inject({ method: 'HEAD', url: `/notes/v1/notes/${noteId}/audio`, headers: { 'x-api-key': clinic.viewer } });
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({ 'accept-ranges': 'bytes', 'content-type': 'audio/mpeg' });
    expect(response.rawPayload.length).toBe(0);
    expect((await historyOf(noteId)).length).toBe(before);
  });

  it('records each fetch in the history, with the range served', async () => {
    await audio('bytes=0-9');
    const last = (await historyOf(noteId)).at(-1);
    expect(last).toMatchObject({ event: 'audio_fetched', key_id: clinic.viewerId, key_name: 'viewer', details: { range: 'bytes=0-9' } });
  });

  it('is 404 AUDIO_NOT_FOUND when no audio is stored, 403 for another clinic, 404 for no note', async () => {
    expect((await audio(undefined, other.viewer)).json().code).toBe('FORBIDDEN_TENANT');
    const missing = await app.inject({
      method: 'GET',
      url: '/notes/v1/notes/00000000-0000-4000-8000-000000000000/audio',
      headers: { 'x-api-key': clinic.viewer },
    });
    expect(missing.json().code).toBe('NOTE_NOT_FOUND');
    const note = await findNote(wavId, db.database.db);
    rmSync(path.join(config.DATA_DIR, 'audio', note!.audioKey));
    const gone = await audio(undefined, clinic.viewer, wavId);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('AUDIO_NOT_FOUND');
  });
});

describe('readRange', () => {
  it('reads the three documented forms and refuses the rest', () => {
    expect(readRange(undefined, 100)).toEqual({ kind: 'whole' });
    expect(readRange('bytes=0-0', 100)).toEqual({ kind: 'partial', range: { start: 0, end: 0 } });
    expect(readRange('bytes=90-', 100)).toEqual({ kind: 'partial', range: { start: 90, end: 99 } });
    expect(readRange('bytes=-10', 100)).toEqual({ kind: 'partial', range: { start: 90, end: 99 } });
    expect(readRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(readRange('bytes=1-x', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(readRange('pages=1-2', 100)).toEqual({ kind: 'whole' });
  });
});
