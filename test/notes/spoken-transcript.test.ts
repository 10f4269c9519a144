import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { json, promptOf, startFakeServer } from '../providers/fake-openai-server.ts';

// The "done when", as a new user tries it: a consultation transcribed as a small Whisper
// writes it (no punctuation or capitals, numbers in words, a drug name misheard, segments cut
// mid-sentence) comes back with the right vitals, the medication as said with a
// possible_drug_misrecognition flag suggesting the lexicon's name, its dose, interval and duration,
// and the follow-up; and the request carried the clinic's drug names in its prompt.

const SEGMENTS = [
  { start: 0, end: 6, text: 'thor cão de seis anos peso trinta e dois quilos temperatura trinta e nove e oito frequencia' },
  { start: 6, end: 12, text: 'cardiaca cento e oitenta né tá com dor no joelho direito há uma semana' },
  { start: 12, end: 19, text: 'vou passar carpofeno dois virgula dois miligramas por quilo de doze em doze horas' },
  { start: 19, end: 24, text: 'por cinco dias retorno em quinze dias' },
];

const remote = await startFakeServer();
afterAll(() => remote.close());
remote.handle((_request, response) =>
  json(response, 200, { text: SEGMENTS.map((s) => s.text).join(' '), language: 'portuguese', duration: 24, segments: SEGMENTS }),
);
const { app, db } = await createTestApp({
  startWorkers: true,
  env: { TRANSCRIPTION_PROVIDER: 'openai', TRANSCRIPTION_BASE_URL: remote.baseUrl, TRANSCRIPTION_RETRY_DELAY_SECONDS: '1' },
});
const clinic = await createClinicWithKeys(db.database);

describe('a transcript as a small Whisper writes it', () => {
  it('gives the vitals, the misheard drug flagged with its suggestion, the dose, interval, duration and follow-up', async () => {
    const settings = await app.inject({
      method: 'PATCH',
      url: `${PREFIX}/settings`,
      headers: as(clinic.admin),
      payload: { drug_names: ['Carproflan Plus', 'Apoquel'] },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const id = await uploadNote(app, clinic.editor, { name: 'Thor', species: 'canine', visit_date: '2026-12-07' }, 'consultation.m4a');
    expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
    const note = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}`, headers: as(clinic.viewer) })).json().data;

    const vitals = Object.fromEntries(note.vitals.map((vital: { code: string; value: number }) => [vital.code, vital.value]));
    expect(vitals).toEqual({ weight: 32, temperature: 39.8, heart_rate: 180 });

    expect(note.plan.medications).toMatchObject([
      {
        drug: 'carpofeno',
        dose_value: 2.2,
        dose_unit: 'mg/kg',
        interval_hours: 12,
        duration_days: 5,
        status: 'prescribed',
        computed_total: { value: 70.4, unit: 'mg' },
        evidence: { start: 12, end: 24 },
      },
    ]);
    expect(note.plan.follow_ups).toMatchObject([{ due_in_days: 15, due_date: '2026-12-22' }]);

    const misheard = note.review_flags.filter((flag: { reason: string }) => flag.reason === 'possible_drug_misrecognition');
    expect(misheard).toEqual([
      {
        section: null,
        sentence: expect.stringContaining('vou passar carpofeno dois virgula dois'),
        reason: 'possible_drug_misrecognition',
        token: 'carpofeno',
        said: 'carpofeno',
        suggestion: 'carprofeno',
        evidence: { start: 12, end: 19 },
      },
    ]);
    // The transcript is left as the server wrote it.
    const transcript = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}/transcription`, headers: as(clinic.viewer) })).json()
      .data;
    expect(transcript.text).toContain('vou passar carpofeno');

    // The fake server saw the clinic's drug names in the request's prompt.
    const prompt = await promptOf(remote.requests.at(-1)!);
    expect(prompt).toMatch(/^Thor, cão, Carproflan Plus, Apoquel, carprofeno, meloxicam/);
  });
});
