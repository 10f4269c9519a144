import { afterAll, describe, expect, it } from 'vitest';
import { NOTE_MAX_RUNS } from '../../src/notes/processing/retry-budget.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { json, startFakeServer } from '../providers/fake-openai-server.ts';

// A transcription server that never recovers: every run of the note's retry budget is used (one
// request each: the audio is short enough to go whole), then the note fails with the provider's
// code. A 1 s first delay keeps the backoff (about 1.5+3+6+12 s) short.

const whisper = await startFakeServer();
afterAll(() => whisper.close());
whisper.handle((_request, response) => json(response, 503, { error: { message: 'model loading' } }));
const { app, db } = await createTestApp({
  startWorkers: true,
  env: {
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: whisper.baseUrl,
    TRANSCRIPTION_API_KEY: 'sk-local-canary-456',
    TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
  },
});
const clinic = await createClinicWithKeys(db.database);

describe('the pipeline when the transcription server answers 503 every time', () => {
  it('fails the note with TRANSCRIPTION_UNAVAILABLE after its last run', async () => {
    const id = await uploadNote(app, clinic.editor, { name: 'Sem servidor' }, 'consultation.m4a');
    expect(await waitUntilSettled(app, clinic.viewer, id, 60_000)).toBe('failed');

    const response = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: { 'x-api-key': clinic.viewer } });
    const note = response.json().data;
    expect(note).toMatchObject({ transcription_status: 'failed', transcription_url: null, note_sections: [] });
    expect(note.failure.code).toBe('TRANSCRIPTION_UNAVAILABLE');
    expect(note.failure.message).toContain('HTTP 503');
    expect(JSON.stringify(note)).not.toContain('sk-local-canary-456');

    // One request per run, all to the transcription endpoint.
    expect(NOTE_MAX_RUNS).toBeGreaterThan(1);
    expect(whisper.requests).toHaveLength(NOTE_MAX_RUNS);
    for (const request of whisper.requests) expect(request.path).toBe('/v1/audio/transcriptions');
  }, 90_000);
});
