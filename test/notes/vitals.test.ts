import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, eventually } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { fixture, postNote, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { chatCompletion, json, startFakeServer } from '../providers/fake-openai-server.ts';
import { registerWebhook, startReceiver } from './webhooks-receiver.ts';

// Vitals end to end: a local OpenAI-compatible server answers each upload's transcription with the
// segments a test sets (and drafts clinical notes), the real pipeline reads the vitals, and the
// note, its webhook, its exports, the clinic's settings and section edits are checked through the API.

const DICTATED = [
  { start: 0, end: 6.4, text: 'Paciente com vômito há dois dias, tomou dois comprimidos de dipirona.' },
  { start: 6.4, end: 11.9, text: 'Temperatura trinta e nove e oito, frequência cardíaca cento e oitenta,' },
  { start: 11.9, end: 17.2, text: 'mucosas hipocoradas, TPC de três segundos.' },
  { start: 17.2, end: 23.7, text: 'Retorno em cinco dias, a consulta ficou em cento e cinquenta reais.' },
];

let segments = DICTATED;
let draft: unknown = { sections: [] };
const remote = await startFakeServer();
afterAll(() => remote.close());
remote.handle((request, response) => {
  if (request.path.endsWith('/audio/transcriptions')) {
    return json(response, 200, { text: segments.map((s) => s.text).join(' '), language: 'portuguese', duration: 23.7, segments });
  }
  return json(response, 200, chatCompletion(draft));
});

const { app, db } = await createTestApp({
  startWorkers: true,
  env: {
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: remote.baseUrl,
    TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
    DRAFTING_PROVIDER: 'openai',
    DRAFTING_BASE_URL: remote.baseUrl,
    DRAFTING_MODEL: 'llama3.1:8b',
  },
});
const clinic = await createClinicWithKeys(db.database);
const viewer = { 'x-api-key': clinic.viewer };
const admin = { 'x-api-key': clinic.admin };
const receiver = await startReceiver();
await registerWebhook(app, clinic.admin, receiver.url);

async function fetchNote(id: string) {
  return (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: viewer })).json().data;
}

/** Uploads with these segments as the transcript and returns the completed note. */
async function settle(metadata: object, said = DICTATED) {
  segments = said;
  const id = await uploadNote(app, clinic.editor, metadata, 'consultation.m4a');
  expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
  return fetchNote(id);
}

const patchSettings = (payload: object, headers = admin) => app.inject({ method: 'PATCH', url: '/notes/v1/settings', headers, payload });
const summary = (note: { vitals: { code: string; value: unknown; unit: unknown; flag: unknown }[] }) =>
  note.vitals.map((vital) => `${vital.code} ${vital.value} ${vital.unit} ${vital.flag}`);

describe('vitals on a completed note', () => {
  it('the dictated example for a dog: four vitals, each flagged, with the words and the time they were said', async () => {
    const note = await settle({ name: 'Rex', species: 'canine' });
    expect(note.species).toBe('canine');
    expect(note.vitals).toEqual([
      {
        code: 'temperature',
        value: 39.8,
        unit: '°C',
        comparator: null,
        text: 'Temperatura trinta e nove e oito',
        evidence: { start: 6.4, end: 11.9 },
        flag: 'high',
      },
      {
        code: 'heart_rate',
        value: 180,
        unit: 'bpm',
        comparator: null,
        text: 'frequência cardíaca cento e oitenta',
        evidence: { start: 6.4, end: 11.9 },
        flag: 'high',
      },
      {
        code: 'capillary_refill_time',
        value: 3,
        unit: 's',
        comparator: null,
        text: 'TPC de três segundos',
        evidence: { start: 11.9, end: 17.2 },
        flag: 'high',
      },
      {
        code: 'mucous_membranes',
        value: 'pale',
        unit: null,
        comparator: null,
        text: 'mucosas hipocoradas',
        evidence: { start: 11.9, end: 17.2 },
        flag: 'abnormal',
      },
    ]);
    // Each vital's words are inside the segments its evidence spans.
    for (const vital of note.vitals) {
      const spoken = DICTATED.filter((s) => s.start >= vital.evidence.start && s.end <= vital.evidence.end)
        .map((s) => s.text)
        .join(' ');
      expect(spoken).toContain(vital.text);
    }

    const txt = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${note.id}/export`, headers: viewer })).body;
    expect(txt).toContain('Espécie: Canina');
    expect(txt).toContain(
      [
        'Sinais vitais',
        '-------------',
        '- Temperatura: 39,8 °C [ALTO]',
        '- Frequência cardíaca: 180 bpm [ALTO]',
        '- Tempo de preenchimento capilar: 3 s [ALTO]',
        '- Mucosas: hipocoradas [ALTERADO]',
      ].join('\n'),
    );
    const rtf = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${note.id}/export?format=rtf`, headers: viewer })).body;
    expect(rtf).toContain('Sinais vitais\\par}');
    expect(rtf).toMatch(/\{\\b\\cf\d+ - Temperatura: 39,8 \\u176\?C \[ALTO\]\}/);

    const event = await eventually(async () =>
      receiver
        .ofType('note.completed')
        .map((entry) => JSON.parse(entry.body).data)
        .find((data) => data.note_id === note.id),
    );
    expect(event.species).toBe('canine');
    expect(event.vitals).toEqual(note.vitals);
  });

  it('the same words for a cat: 180 bpm is within its range', async () => {
    const note = await settle({ name: 'Mimi', species: 'feline' });
    expect(summary(note)).toEqual([
      'temperature 39.8 °C high',
      'heart_rate 180 bpm null',
      'capillary_refill_time 3 s high',
      'mucous_membranes pale null abnormal',
    ]);
  });

  it('takes the species from the transcript when the upload does not give it; none said, none shown', async () => {
    const cat = await settle({ name: 'Tom' }, [{ start: 0, end: 12, text: 'Felino de dois anos, FC 180, FR 32 mpm, temperatura 38,5.' }]);
    expect(cat.species).toBe('feline');
    expect(summary(cat)).toEqual(['temperature 38.5 °C null', 'heart_rate 180 bpm null', 'respiratory_rate 32 /min null']);

    const unknown = await settle({ name: 'Sem espécie' });
    expect(unknown.species).toBeNull();
    // Every species' rows (dehydration, body condition) still apply; species rows do not.
    const rows = await settle({ name: 'Sem espécie 2' }, [{ start: 0, end: 12, text: 'FC 300, desidratação de 8%, ECC 7.' }]);
    expect(summary(rows)).toEqual(['heart_rate 300 bpm null', 'body_condition_score 7 /9 high', 'dehydration 8 % high']);

    const none = await settle({ name: 'Nada', species: 'equine' }, [
      { start: 0, end: 12, text: 'Retorno para retirar os pontos, dez dias de pós-operatório, quinhentos reais.' },
    ]);
    expect(none.vitals).toEqual([]);
  });

  it('refuses a species the API does not know, at upload', async () => {
    const response = await postNote(app, admin['x-api-key'], {
      audio: { bytes: fixture('consultation.m4a'), fileName: 'a.m4a' },
      metadata: { name: 'X', species: 'dragon' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'metadata.species' } });
  });

  it('shows the species on a note while it waits and in the list', async () => {
    segments = DICTATED;
    const id = await uploadNote(app, clinic.editor, { name: 'Lista', species: 'bovine' }, 'consultation.m4a');
    expect((await fetchNote(id)).species).toBe('bovine');
    await waitUntilSettled(app, clinic.viewer, id, 30_000);
    const list = (await app.inject({ method: 'GET', url: '/notes/v1/notes?name=Lista', headers: viewer })).json();
    expect(list.data[0]).toMatchObject({ id, species: 'bovine' });
    expect(list.data[0].vitals).toBeUndefined();
  });
});

describe('clinic reference ranges', () => {
  it('start at the defaults; an override flags new notes and leaves completed ones as they were', async () => {
    const before = await settle({ name: 'Antes', species: 'canine' });
    const shown = (await app.inject({ method: 'GET', url: '/notes/v1/settings', headers: viewer })).json().data.reference_ranges;
    expect(shown.canine.heart_rate).toEqual({ min: 60, max: 160 });
    expect(shown.feline.temperature).toEqual({ min: 37.8, max: 39.2 });
    expect(shown.caprine).toEqual({
      dehydration: { min: null, max: 5 },
      body_condition_score_9: { min: 4, max: 5 },
      body_condition_score_5: { min: 3, max: 3 },
    });

    const patched = await patchSettings({ reference_ranges: { canine: { heart_rate: { max: 200 }, temperature: { max: 40 } } } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data.reference_ranges.canine.heart_rate).toEqual({ min: 60, max: 200 });
    expect(patched.json().data.reference_ranges.canine.temperature).toEqual({ min: 37.5, max: 40 });

    const after = await settle({ name: 'Depois', species: 'canine' });
    expect(summary(after).slice(0, 2)).toEqual(['temperature 39.8 °C null', 'heart_rate 180 bpm null']);
    expect(summary(await fetchNote(before.id)).slice(0, 2)).toEqual(['temperature 39.8 °C high', 'heart_rate 180 bpm high']);

    const removed = await patchSettings({ reference_ranges: { canine: { heart_rate: null } } });
    expect(removed.json().data.reference_ranges.canine.heart_rate).toEqual({ min: 60, max: 160 });
    expect(removed.json().data.reference_ranges.canine.temperature).toEqual({ min: 37.5, max: 40 });
    const reset = await patchSettings({ reference_ranges: { canine: null } });
    expect(reset.json().data.reference_ranges.canine.temperature).toEqual({ min: 37.5, max: 39.2 });
  });

  it('refuses an unknown species or code, a minimum above its maximum, and a key without keys:manage', async () => {
    for (const [payload, field] of [
      [{ reference_ranges: { dragon: { heart_rate: { max: 1 } } } }, 'reference_ranges.dragon'],
      [{ reference_ranges: { canine: { mucous_membranes: { max: 1 } } } }, 'reference_ranges.canine.mucous_membranes'],
      [{ reference_ranges: { canine: { heart_rate: { max: 'alto' } } } }, 'reference_ranges.canine.heart_rate.max'],
      [{ reference_ranges: { canine: { heart_rate: { min: 170 } } } }, 'reference_ranges.canine.heart_rate'],
    ] as const) {
      const response = await patchSettings(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    }
    expect(
      (await patchSettings({ reference_ranges: { canine: { heart_rate: { max: 1 } } } }, { 'x-api-key': clinic.editor })).statusCode,
    ).toBe(403);
    const shown = (await app.inject({ method: 'GET', url: '/notes/v1/settings', headers: viewer })).json().data.reference_ranges;
    expect(shown.canine.heart_rate).toEqual({ min: 60, max: 160 });
  });
});

describe('a section edit', () => {
  it('re-reads the vitals whose words changed (evidence null) and keeps the others', async () => {
    const note = await settle({ name: 'Edição', species: 'canine' });
    const section = note.note_sections.find((s: { content: string }) => s.content.includes('Temperatura trinta e nove e oito'));
    const content = section.content.replace('Temperatura trinta e nove e oito', 'Temperatura trinta e oito e cinco');
    const response = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/note_sections?section_id=${section.id}`,
      headers: { 'x-api-key': clinic.editor },
      payload: { title: section.title, content, order: section.order },
    });
    expect(response.statusCode).toBe(200);
    const edited = await fetchNote(note.id);
    expect(edited.vitals.find((vital: { code: string }) => vital.code === 'temperature')).toEqual({
      code: 'temperature',
      value: 38.5,
      unit: '°C',
      comparator: null,
      text: 'Temperatura trinta e oito e cinco',
      evidence: null,
      flag: null,
    });
    expect(edited.vitals.filter((vital: { code: string }) => vital.code !== 'temperature')).toEqual(
      note.vitals.filter((vital: { code: string }) => vital.code !== 'temperature'),
    );
  });
});

describe('a clinical draft', () => {
  it('flags a drafted vital that differs from the one said, and keeps the sentence', async () => {
    const said = [
      { start: 0, end: 8, text: 'Cão de seis anos, frequência cardíaca cento e oitenta, em casa o aparelho deu cento e vinte.' },
      { start: 8, end: 14, text: 'Temperatura trinta e nove e oito.' },
    ];
    draft = {
      sections: [
        {
          label: 'physical_exam',
          sentences: [
            { text: 'FC 120 bpm.', segments: [1] },
            { text: 'T 39,8 °C.', segments: [2] },
          ],
        },
      ],
    };
    const note = await settle({ name: 'Clínico', note_style: 'clinical' }, said);
    expect(note.note_style).toBe('clinical');
    expect(note.note_sections[0].content).toBe('FC 120 bpm. T 39,8 °C.');
    expect(note.review_flags).toEqual([
      { section: 'physical_exam', sentence: 'FC 120 bpm.', reason: 'vital_mismatch', token: 'FC 120 bpm' },
    ]);
    expect(summary(note)).toEqual(['temperature 39.8 °C high', 'heart_rate 180 bpm high']);
    const txt = (await app.inject({ method: 'GET', url: `/notes/v1/notes/${note.id}/export`, headers: viewer })).body;
    expect(txt).toContain('- Exame Físico: "FC 120 bpm." — "FC 120 bpm" difere do valor dito na consulta (ver Sinais vitais).');
  });
});
