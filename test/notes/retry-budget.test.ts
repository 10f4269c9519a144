import { afterAll, describe, expect, it } from 'vitest';
import { CHUNK_TRIES, NOTE_MAX_RUNS } from '../../src/notes/processing/retry-budget.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { json, startFakeServer } from '../providers/fake-openai-server.ts';

// The retry budget (src/notes/processing/retry-budget.ts) says how often a failing note is sent to the
// transcription server: at most NOTE_MAX_RUNS runs, and within a run at most CHUNK_TRIES requests
// per chunk of long audio. A server that never recovers receives exactly that many requests for the
// first chunk (chunks go one at a time here, so the first one's failure ends each run).

const whisper = await startFakeServer();
afterAll(() => whisper.close());
whisper.handle((_request, response) => json(response, 503, { error: { message: 'model loading' } }));
const { app, db } = await createTestApp({
  startWorkers: true,
  env: {
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: whisper.baseUrl,
    TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
    // consultation.wav lasts ~24 s: chunks of at most 8 s, sent one at a time.
    TRANSCRIPTION_MAX_REQUEST_SECONDS: '8',
    TRANSCRIPTION_CHUNK_OVERLAP_SECONDS: '2',
    TRANSCRIPTION_CHUNK_CONCURRENCY: '1',
  },
});
const clinic = await createClinicWithKeys(db.database);

describe('the retry budget of a long recording the server never transcribes', () => {
  it(`sends its first chunk ${NOTE_MAX_RUNS} runs × ${CHUNK_TRIES} tries, then fails the note`, async () => {
    const id = await uploadNote(app, clinic.editor, { name: 'Orçamento de tentativas' }, 'consultation.wav');
    expect(await waitUntilSettled(app, clinic.viewer, id, 120_000)).toBe('failed');
    const note = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: { 'x-api-key': clinic.viewer } })).json().data;
    expect(note.failure.code).toBe('TRANSCRIPTION_UNAVAILABLE');
    expect(note.failure.message).toMatch(/^Chunk 1 of \d+/);
    expect(whisper.requests).toHaveLength(NOTE_MAX_RUNS * CHUNK_TRIES);
  }, 150_000);
});
