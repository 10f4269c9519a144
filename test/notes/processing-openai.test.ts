import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { json, startFakeServer } from '../providers/fake-openai-server.ts';

// The pipeline with TRANSCRIPTION_PROVIDER=openai against a local server speaking the protocol
// (the on-premises path: faster-whisper/speaches or whisper.cpp behind the same API).

const whisper = await startFakeServer();
afterAll(() => whisper.close());
const { app, db } = await createTestApp({
  startWorkers: true,
  env: {
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: whisper.baseUrl,
    TRANSCRIPTION_API_KEY: 'sk-local-canary-123',
    TRANSCRIPTION_MODEL: 'Systran/faster-whisper-small',
    TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
  },
});
const clinic = await createClinicWithKeys(db.database);

const TRANSCRIPT = {
  text: 'Anamnese: tutora relata tosse há cinco dias. Exame físico: temperatura de 39 graus. Diagnóstico: traqueobronquite. Tratamento: doxiciclina por dez dias. Retorno em uma semana.',
  language: 'portuguese',
  duration: 23.7,
  segments: [{ start: 0, end: 23.7, text: 'Anamnese: tutora relata tosse há cinco dias.' }],
};

async function uploadAndSettle(name: string) {
  const id = await uploadNote(app, clinic.editor, { name }, 'consultation.m4a');
  await waitUntilSettled(app, clinic.viewer, id, 30_000);
  return (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: { 'x-api-key': clinic.viewer } })).json().data;
}

describe('the pipeline over an OpenAI-compatible transcription server', () => {
  it('retries a 503 with backoff and completes', async () => {
    const before = whisper.requests.length;
    whisper.handle((_request, response, index) =>
      index === before ? json(response, 503, { error: { message: 'loading model' } }) : json(response, 200, TRANSCRIPT),
    );
    const note = await uploadAndSettle('Retry');
    expect(note.transcription_status).toBe('completed');
    expect(whisper.requests.length - before).toBe(2);
    expect(whisper.requests.at(-1)?.headers.authorization).toBe('Bearer sk-local-canary-123');
    // A real provider's transcript: never marked simulated, no simulated_transcript flag.
    expect(note.simulated).toBe(false);
    expect(note.review_flags).toEqual([]);
    expect(note.note_sections.map((section: { label: string }) => section.label)).toEqual(
      expect.arrayContaining(['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'follow_up']),
    );
  });

  it('fails at once on a 4xx, with a code and no secret in the message', async () => {
    whisper.handle((_request, response) => json(response, 400, { error: { message: 'unsupported audio' } }));
    const before = whisper.requests.length;
    const note = await uploadAndSettle('Rejected');
    expect(note.transcription_status).toBe('failed');
    expect(whisper.requests.length - before).toBe(1);
    expect(note.failure.code).toBe('TRANSCRIPTION_REJECTED');
    expect(JSON.stringify(note)).not.toContain('sk-local-canary-123');
  });
});
