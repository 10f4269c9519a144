import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { startFakeSpeechServer, trueSpeaker } from '../providers/fake-speech-server.ts';
import { toneFile } from '../providers/tone-audio.ts';

// TRANSCRIPTION_DIARIZE=true over chunks: the fake labels speakers per request in the order it
// hears them (as a diarizing server does), so the same person may be "A" in one chunk and "B" in
// the next; the stitched transcript must name each person the same way throughout.

const server = await startFakeSpeechServer();
afterAll(() => server.close());
const { app, db } = await createTestApp({
  startWorkers: true,
  env: {
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: server.baseUrl,
    TRANSCRIPTION_MODEL: 'gpt-4o-transcribe-diarize',
    TRANSCRIPTION_DIARIZE: 'true',
    TRANSCRIPTION_MAX_REQUEST_SECONDS: '300',
  },
});
const clinic = await createClinicWithKeys(db.database);

describe('speakers across chunks', () => {
  it('keeps each speaker label on the segments and in the text, the same in every chunk', async () => {
    const seconds = 1265;
    const file = await toneFile('mp3', seconds);
    const id = await uploadNote(app, clinic.editor, { name: 'Speakers' }, { bytes: readFileSync(file), fileName: 'visit.mp3' });
    expect(await waitUntilSettled(app, clinic.viewer, id, 120_000)).toBe('completed');

    expect(server.requests.length).toBeGreaterThanOrEqual(5);
    expect(server.requests.every((request) => request.responseFormat === 'diarized_json')).toBe(true);
    // Some chunk starts with the tutor talking, so the server's own labels do change between chunks.
    expect(server.requests.some((request) => trueSpeaker(request.seconds[0]!) === 'tutor')).toBe(true);

    const transcript = (
      await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/transcription`, headers: { 'x-api-key': clinic.viewer } })
    ).json().data;
    const segments = transcript.segments as { text: string; speaker?: string }[];
    expect(segments.map((segment) => segment.text)).toEqual(Array.from({ length: seconds }, (_, k) => `w${k}`));
    const labelOf = new Map<string, Set<string | undefined>>();
    for (const [k, segment] of segments.entries()) {
      const who = trueSpeaker(k);
      labelOf.set(who, (labelOf.get(who) ?? new Set()).add(segment.speaker));
    }
    expect([...labelOf.get('vet')!]).toEqual(['A']);
    expect([...labelOf.get('tutor')!]).toEqual(['B']);
    const lines = (transcript.text as string).split('\n');
    expect(lines[0]).toBe('A: w0 w1 w2 w3 w4 w5 w6 w7 w8 w9');
    expect(lines[1]).toBe('B: w10 w11 w12 w13 w14 w15 w16 w17 w18 w19');
    expect(lines).toHaveLength(Math.ceil(seconds / 10));
  }, 180_000);
});
