import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { json, startFakeServer } from '../providers/fake-openai-server.ts';

// The walk-through, as a new user would try it: three visits of one dog uploaded over a
// month (a dose of meloxicam changed at the second, a recheck at the third), through the real
// pipeline (speech-to-text server faked, plan read from the transcript, completion).
const remote = await startFakeServer();
afterAll(() => remote.close());
let said = '';
remote.handle((request, response) => {
  if (!request.path.endsWith('/audio/transcriptions')) return json(response, 404, {});
  const segments = said.split(/(?<=\.) /).map((text, i) => ({ start: i * 5, end: i * 5 + 5, text }));
  return json(response, 200, { text: said, language: 'portuguese', duration: segments.length * 5, segments });
});

const { app, db } = await createTestApp({
  startWorkers: true,
  env: { TRANSCRIPTION_PROVIDER: 'openai', TRANSCRIPTION_BASE_URL: remote.baseUrl, TRANSCRIPTION_RETRY_DELAY_SECONDS: '1' },
});
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');

async function visit(day: string, transcript: string): Promise<string> {
  said = transcript;
  const id = await uploadNote(app, clinic.editor, { name: 'Thor', external_id: 'THOR-7', species: 'canine', visit_date: day });
  expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
  return id;
}

async function sign(id: string) {
  const response = await app.inject({
    method: 'POST',
    url: `/notes/v1/notes/${id}/sign`,
    headers: as(clinic.editor),
    payload: { signed_by: { name: 'Dra. Ana', license: 'CRMV-SP 12345' }, acknowledge_flags: true },
  });
  expect(response.statusCode, response.body).toBe(200);
}

const note = async (id: string) =>
  (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.viewer) })).json().data;

const first = await visit(
  '2026-11-02',
  'Thor está coçando as orelhas há uma semana. Pesa trinta quilos. Otite externa bilateral. Vou passar meloxicam 0,1 mg/kg a cada 24 horas por cinco dias.',
);
await sign(first);
const second = await visit(
  '2026-11-16',
  'Thor melhorou mas ainda coça. Pesa vinte e nove quilos e meio. Otite externa em melhora. Vamos aumentar o meloxicam para 0,2 mg/kg a cada 24 horas.',
);
await sign(second);
const third = await visit('2026-12-01', 'Retorno do Thor, orelhas limpas. Otite resolvida. Suspender o meloxicam. Retorno em trinta dias.');

describe('three visits of one dog', () => {
  it('flags the dose of meloxicam changed at the second visit', async () => {
    const secondNote = await note(second);
    const meloxicam = secondNote.plan.medications.find((m: { drug: string }) => m.drug === 'meloxicam');
    expect(meloxicam).toMatchObject({
      dose_value: 0.2,
      change_since_last_visit: 'dose_changed',
      previous: { note_id: first, dose_value: 0.1, dose_unit: 'mg/kg', interval_hours: 24 },
    });
    expect(secondNote.review_flags.map((flag: { reason: string }) => flag.reason)).toContain('changed_since_last_visit');
    const firstNote = await note(first);
    expect(firstNote.plan.medications[0]).not.toHaveProperty('change_since_last_visit');
  });

  it('shows them as a history with weights', async () => {
    const response = await app.inject({ method: 'GET', url: '/notes/v1/patients/THOR-7', headers: as(clinic.viewer) });
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json();
    expect(data.timeline.map((entry: { note_id: string }) => entry.note_id)).toEqual([third, second, first]);
    expect(data.timeline.map((entry: { record_status: string }) => entry.record_status)).toEqual(['draft', 'signed', 'signed']);
    expect(data.weights.map((weight: { kg: number; note_id: string }) => [weight.kg, weight.note_id])).toEqual([
      [30, first],
      [29.5, second],
    ]);
    expect(data).toMatchObject({ first_visit: '2026-11-02', last_visit: '2026-12-01', notes: 3 });
  });

  it('finds all three by q=meloxicam with snippets, and only the phrase with q="otite externa"', async () => {
    const search = async (q: string, key = clinic.viewer) =>
      (await app.inject({ method: 'GET', url: `/notes/v1/notes?${new URLSearchParams({ q })}`, headers: as(key) })).json();
    const meloxicam = await search('meloxicam');
    expect(meloxicam.data.map((item: { id: string }) => item.id)).toEqual([third, second, first]);
    for (const item of meloxicam.data) expect(item.matches.map((m: { snippet: string }) => m.snippet).join(' ')).toMatch(/«meloxicam»/i);
    const phrase = await search('"otite externa"');
    expect(phrase.data.map((item: { id: string }) => item.id)).toEqual([second, first]);
    expect((await search('meloxicam', other.viewer)).meta.total).toBe(0);
    expect((await search('"otite externa"', other.viewer)).data).toEqual([]);
  });
});
