import { afterAll, describe, expect, it } from 'vitest';
import { LIVE_PART_QUEUE } from '../../src/notes/live/live-part.job.ts';
import { CHUNK_TRIES, LIVE_PART_MAX_RUNS, NOTE_MAX_RUNS } from '../../src/notes/processing/retry-budget.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { fixture, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { json, startFakeServer } from '../providers/fake-openai-server.ts';

// The retry budget (src/notes/processing/retry-budget.ts) says how often a failing note is sent to the
// transcription server: at most NOTE_MAX_RUNS runs, and within a run at most CHUNK_TRIES requests
// per chunk of long audio. A server that never recovers receives exactly that many requests for the
// first chunk (chunks go one at a time here, so the first one's failure ends each run). A live
// note's part is sent by its own job at most LIVE_PART_MAX_RUNS runs × CHUNK_TRIES requests (per
// piece) before it is left to the note's runs at `complete`.

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

describe('the retry budget of a live part the server never transcribes', () => {
  it(`sends it ${LIVE_PART_MAX_RUNS} runs × ${CHUNK_TRIES} tries from its own job, then stops`, async () => {
    // Every note before this one has failed: whatever the server receives from now on is this part's.
    const before = whisper.requests.length;
    const created = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/live`,
      payload: { name: 'Parte teimosa' },
      headers: as(clinic.editor),
    });
    expect(created.statusCode, created.body).toBe(201);
    const id: string = created.json().data.id;
    // ~24 s: cut into pieces of at most 8 s, sent one at a time, so the first piece's failure ends each run.
    const put = await app.inject({
      method: 'PUT',
      url: `${PREFIX}/notes/${id}/parts/1`,
      payload: fixture('consultation.wav'),
      headers: { ...as(clinic.editor), 'content-type': 'application/octet-stream' },
    });
    expect(put.statusCode, put.body).toBe(201);
    await eventually(
      async () => {
        const [job] = await app.vetflow.jobs.boss.findJobs(LIVE_PART_QUEUE, { data: { noteId: id } });
        return job?.state === 'failed';
      },
      90_000,
      200,
    );
    // Nothing more is sent once the job has given up (the note is still open: no run of its own yet).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(whisper.requests.length - before).toBe(LIVE_PART_MAX_RUNS * CHUNK_TRIES);
  }, 120_000);
});
