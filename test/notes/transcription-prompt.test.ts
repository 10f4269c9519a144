import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { toneParts } from '../helpers/live-parts.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { startFakeSpeechServer } from '../providers/fake-speech-server.ts';
import { toneFile } from '../providers/tone-audio.ts';

// The prompt the app sends with each request (docs/providers.md, "The prompt"): the patient's name
// and species, the clinic's drug names, the lexicon's likeliest drugs, and for a chunk of long audio
// or a live part the words heard just before it. The fake server records each request's `prompt`
// and answers the tone audio with one word per second ("w17").

const server = await startFakeSpeechServer();
afterAll(() => server.close());
const { app, db } = await createTestApp({
  startWorkers: true,
  env: {
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: server.baseUrl,
    TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
    // 70 s of audio is three chunks, sent one after the other so each has its predecessor's words.
    TRANSCRIPTION_MAX_REQUEST_SECONDS: '30',
    TRANSCRIPTION_CHUNK_CONCURRENCY: '1',
  },
});
const clinic = await createClinicWithKeys(db.database);
const changed = await app.inject({
  method: 'PATCH',
  url: `${PREFIX}/settings`,
  headers: as(clinic.admin),
  payload: { drug_names: ['Apoquel', 'Cytopoint Vet'] },
});
expect(changed.statusCode, changed.body).toBe(200);

const BUDGET = 550; // TRANSCRIPTION_PROMPT_MAX_CHARS's default
const VOCABULARY = 'Thor, cão, Apoquel, Cytopoint Vet, carprofeno, meloxicam, dipirona';

async function uploadTone(seconds: number, metadata: object) {
  const before = server.requests.length;
  const file = await toneFile('wav', seconds);
  const id = await uploadNote(app, clinic.editor, metadata, { bytes: readFileSync(file), fileName: 'consultation.wav' });
  expect(await waitUntilSettled(app, clinic.viewer, id, 60_000)).toBe('completed');
  return server.requests.slice(before).filter((request) => request.status === 200);
}

describe('the prompt sent to the transcription server', () => {
  it("primes a short note with the patient, the species, the clinic's drug names and the lexicon's likeliest drugs", async () => {
    const [request, ...more] = await uploadTone(10, { name: 'Thor', species: 'canine' });
    expect(more).toEqual([]);
    expect(request!.prompt!.startsWith(VOCABULARY)).toBe(true);
    expect(request!.prompt!.length).toBeLessThanOrEqual(BUDGET);
    // Filled to the budget with the lexicon's list, and nothing heard before it.
    expect(request!.prompt!.length).toBeGreaterThan(BUDGET - 40);
    expect(request!.prompt!.endsWith('.')).toBe(true);
  });

  it('leaves the species out when the upload names none', async () => {
    const [request] = await uploadTone(10, { name: 'Mimi' });
    expect(request!.prompt!.startsWith('Mimi, Apoquel, Cytopoint Vet, carprofeno')).toBe(true);
  });

  it('sends each chunk of long audio with the last words of the chunk before it, within the budget', async () => {
    const requests = await uploadTone(70, { name: 'Thor', species: 'canine' });
    expect(requests.length).toBe(3);
    expect(requests[0]!.prompt!.startsWith(VOCABULARY)).toBe(true);
    expect(requests[0]!.prompt).not.toMatch(/w\d/);
    for (const [i, request] of requests.entries()) {
      expect(request.prompt!.length).toBeLessThanOrEqual(BUDGET);
      if (i === 0) continue;
      expect(request.prompt!.startsWith(VOCABULARY)).toBe(true);
      const heardBefore = requests[i - 1]!.seconds.map((second) => `w${second}`).join(' ');
      // The words before close the prompt (Whisper keeps a long prompt's end).
      const tail = request.prompt!.slice(request.prompt!.indexOf(' w') + 1);
      expect(heardBefore.endsWith(tail)).toBe(true);
      expect(tail.split(' ').length).toBeGreaterThan(10);
    }
  });

  it('sends each live part with the last words of the part before it', async () => {
    const parts = await toneParts([0, 20, 40], () => 'mp3', 40);
    const created = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/live`,
      headers: as(clinic.editor),
      payload: { name: 'Luna', species: 'feline' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    const before = server.requests.length;
    const put = (n: number) =>
      app.inject({
        method: 'PUT',
        url: `${PREFIX}/notes/${id}/parts/${n}`,
        payload: parts[n - 1]!,
        headers: { ...as(clinic.editor), 'content-type': 'audio/mpeg' },
      });
    expect((await put(1)).statusCode).toBe(201);
    // Part 2 arrives once part 1's transcript is held, as in a visit where parts come every few seconds.
    await eventually(async () => {
      const result = await db.database.db.execute(
        sql`select count(*)::int as n from note_parts where note_id = ${id} and part = 1 and transcript is not null`,
      );
      return (result as unknown as { rows: { n: number }[] }).rows[0]!.n === 1;
    }, 30_000);
    expect((await put(2)).statusCode).toBe(201);
    const completed = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/${id}/complete`,
      payload: { parts: 2 },
      headers: as(clinic.editor),
    });
    expect(completed.statusCode, completed.body).toBe(202);
    expect(await waitUntilSettled(app, clinic.viewer, id, 60_000)).toBe('completed');
    const requests = server.requests.slice(before).filter((request) => request.status === 200);
    expect(requests.length).toBe(2);
    expect(requests[0]!.prompt!.startsWith('Luna, gato, Apoquel, Cytopoint Vet, carprofeno')).toBe(true);
    expect(requests[0]!.prompt).not.toMatch(/w\d/);
    const partOne = requests[0]!.seconds.map((second) => `w${second}`).join(' ');
    const tail = requests[1]!.prompt!.slice(requests[1]!.prompt!.indexOf(' w') + 1);
    expect(tail).toBe(partOne);
    expect(requests[1]!.prompt!.length).toBeLessThanOrEqual(BUDGET);
  });
});
