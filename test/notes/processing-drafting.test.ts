import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, eventually } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { fixture, postNote, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { chatCompletion, chatRequest, type FakeHandler, json, startFakeServer } from '../providers/fake-openai-server.ts';
import { startReceiver } from './webhooks-receiver.ts';

// The whole path with NOTE_STYLE=clinical: a local server speaking both OpenAI-compatible APIs
// (speech-to-text and chat completions) stands in for whisper and the drafting model.

const DRAFT_KEY = 'sk-draft-canary-5e4d3c2b1a';
const SEGMENTS = [
  { start: 0, end: 5.5, text: 'A Mel tá vomitando desde anteontem, doutora, umas quatro vezes por dia.' },
  { start: 5.5, end: 9, text: 'Ela pesa oito quilos e meio.' },
  { start: 9, end: 13, text: 'Temperatura trinta e nove e quatro, abdômen dolorido na palpação.' },
  { start: 13, end: 19.5, text: 'Vou passar omeprazol um miligrama por quilo uma vez ao dia por sete dias.' },
  { start: 19.5, end: 23.7, text: 'Retorno em cinco dias se não melhorar.' },
];
const TRANSCRIPT = { text: SEGMENTS.map((segment) => segment.text).join(' '), language: 'portuguese', duration: 23.7, segments: SEGMENTS };

const GROUNDED = {
  sections: [
    { label: 'anamnesis', sentences: [{ text: 'Tutora relata vômitos desde anteontem, cerca de 4 vezes ao dia.', segments: [1] }] },
    {
      label: 'physical_exam',
      sentences: [{ text: 'Peso 8,5 kg. T 39,4 °C; dor abdominal à palpação.', segments: [2, 3] }],
    },
    { label: 'treatment', sentences: [{ text: 'Omeprazol 1 mg/kg a cada 24 h por 7 dias.', segments: [4] }] },
    { label: 'follow_up', sentences: [{ text: 'Retorno em 5 dias se não houver melhora.', segments: [5] }] },
  ],
};
const INVENTED_DOSE = 'Omeprazol 2 mg/kg a cada 24 h por 7 dias.';
const WITH_INVENTED_DOSE = {
  sections: GROUNDED.sections.map((section) =>
    section.label === 'treatment' ? { ...section, sentences: [{ text: INVENTED_DOSE, segments: [4] }] } : section,
  ),
};

const remote = await startFakeServer();
afterAll(() => remote.close());
let transcriptionFails = false;
let transcript = TRANSCRIPT;
let chat: FakeHandler = (_request, response) => json(response, 200, chatCompletion(GROUNDED));
remote.handle((request, response, index) => {
  if (request.path.endsWith('/audio/transcriptions')) {
    if (transcriptionFails) return json(response, 400, { error: { message: 'unsupported audio' } });
    return json(response, 200, transcript);
  }
  return chat(request, response, index);
});
const chatRequests = () => remote.requests.filter((request) => request.path.endsWith('/chat/completions'));

const { app, db, logs } = await createTestApp({
  startWorkers: true,
  env: {
    LOG_LEVEL: 'trace',
    NOTE_STYLE: 'clinical',
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: remote.baseUrl,
    TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
    DRAFTING_PROVIDER: 'openai',
    DRAFTING_BASE_URL: remote.baseUrl,
    DRAFTING_API_KEY: DRAFT_KEY,
    DRAFTING_MODEL: 'llama3.1:8b',
  },
});
const clinic = await createClinicWithKeys(db.database);
const viewer = { 'x-api-key': clinic.viewer };

beforeEach(() => {
  transcriptionFails = false;
  transcript = TRANSCRIPT;
  chat = (_request, response) => json(response, 200, chatCompletion(GROUNDED));
});

async function fetchNote(id: string) {
  return (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: viewer })).json().data;
}

async function settle(metadata: object) {
  const id = await uploadNote(app, clinic.editor, metadata, 'consultation.m4a');
  await waitUntilSettled(app, clinic.viewer, id, 30_000);
  return fetchNote(id);
}

async function exported(id: string, format: 'txt' | 'rtf') {
  return (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/export?format=${format}`, headers: viewer })).body;
}

describe('clinical notes', () => {
  it('an upload asking for clinical completes with concise sections and the time ranges of the cited segments', async () => {
    const before = chatRequests().length;
    const note = await settle({ name: 'Mel', note_style: 'clinical' });

    expect(note.transcription_status).toBe('completed');
    expect(note.note_style).toBe('clinical');
    expect(note.review_flags).toEqual([]);
    expect(note.note_sections.map((s: any) => [s.label, s.title, s.content, s.evidence, s.order])).toEqual([
      ['anamnesis', 'Anamnese', 'Tutora relata vômitos desde anteontem, cerca de 4 vezes ao dia.', [{ start: 0, end: 5.5 }], '1'],
      [
        'physical_exam',
        'Exame Físico',
        'Peso 8,5 kg. T 39,4 °C; dor abdominal à palpação.',
        [
          { start: 5.5, end: 9 },
          { start: 9, end: 13 },
        ],
        '2',
      ],
      ['treatment', 'Tratamento', 'Omeprazol 1 mg/kg a cada 24 h por 7 dias.', [{ start: 13, end: 19.5 }], '3'],
      ['follow_up', 'Seguimento', 'Retorno em 5 dias se não houver melhora.', [{ start: 19.5, end: 23.7 }], '4'],
    ]);

    const requests = chatRequests().slice(before);
    expect(requests).toHaveLength(1);
    const body = chatRequest(requests[0]!);
    expect(body.model).toBe('llama3.1:8b');
    expect(requests[0]!.headers.authorization).toBe(`Bearer ${DRAFT_KEY}`);
    expect(body.messages[1]!.content).toBe(SEGMENTS.map((segment, i) => `[${i + 1}] ${segment.text}`).join('\n'));

    const txt = await exported(note.id, 'txt');
    expect(txt).toContain('Estilo: Clínico');
    expect(txt).toContain('Tratamento\n----------\nOmeprazol 1 mg/kg a cada 24 h por 7 dias.');
    expect(txt).not.toContain('Revisar');
  });

  it('takes the style from NOTE_STYLE when the upload does not choose, and writes verbatim when asked', async () => {
    const before = chatRequests().length;
    const byDefault = await settle({ name: 'Padrão' });
    expect(byDefault.note_style).toBe('clinical');
    expect(chatRequests().length - before).toBe(1);

    const verbatim = await settle({ name: 'Literal', note_style: 'verbatim' });
    expect(chatRequests().length - before).toBe(1); // no model call
    expect(verbatim.note_style).toBe('verbatim');
    expect(verbatim.review_flags).toEqual([]);
    expect(verbatim.note_sections.length).toBeGreaterThan(0);
    // The transcript's own words; every segment is the evidence of the section holding its sentence.
    expect(verbatim.note_sections.map((s: any) => s.content).join(' ')).toContain('Vou passar omeprazol um miligrama por quilo');
    const treatment = verbatim.note_sections.find((s: any) => s.content.includes('Vou passar omeprazol'));
    expect(treatment.evidence).toContainEqual({ start: 13, end: 19.5 });
    const placed = verbatim.note_sections.flatMap((s: any) => s.evidence).map((range: any) => range.start);
    expect([...new Set(placed)].sort((a: any, b: any) => a - b)).toEqual(SEGMENTS.map((segment) => segment.start));
  });

  it('refuses an unknown style with 422 naming the field, and keeps nothing', async () => {
    const response = await postNote(app, clinic.editor, {
      audio: { bytes: fixture('consultation.mp3'), fileName: 'consultation.mp3' },
      metadata: { name: 'Rex', note_style: 'summary' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'metadata.note_style' } });
    const list = await app.inject({ method: 'GET', url: '/notes/v1/notes?name=Rex', headers: viewer });
    expect(list.json().data).toEqual([]);
  });

  it('flags an invented dose everywhere the note goes: fetch, TXT and RTF exports, note.completed webhook', async () => {
    const receiver = await startReceiver();
    const hook = await app.inject({
      method: 'POST',
      url: '/notes/v1/webhooks',
      headers: { 'x-api-key': clinic.admin },
      payload: { url: receiver.url, events: ['note.completed'] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    chat = (_request, response) => json(response, 200, chatCompletion(WITH_INVENTED_DOSE));

    const note = await settle({ name: 'Dose' });
    const flag = { section: 'treatment', sentence: INVENTED_DOSE, reason: 'ungrounded', token: '2' };
    expect(note.transcription_status).toBe('completed');
    expect(note.note_style).toBe('clinical');
    expect(note.review_flags).toEqual([flag]);
    // Removed from the note, kept only in the flag.
    expect(note.note_sections.map((s: any) => s.label)).toEqual(['anamnesis', 'physical_exam', 'follow_up']);
    expect(JSON.stringify(note.note_sections)).not.toContain('2 mg/kg');

    const txt = await exported(note.id, 'txt');
    expect(txt).toContain(`Revisar\n-------\n- Tratamento: "${INVENTED_DOSE}" — "2" não consta nas falas citadas; frase retirada da nota.`);
    const rtf = await exported(note.id, 'rtf');
    expect(rtf).toContain('Revisar\\par}');
    expect(rtf).toContain('Omeprazol 2 mg/kg');

    const [delivery] = await eventually(async () => {
      const found = receiver.ofType('note.completed').filter((entry) => JSON.parse(entry.body).data.note_id === note.id);
      return found.length > 0 && found;
    }, 15_000);
    const event = JSON.parse(delivery!.body);
    expect(event.data.note_style).toBe('clinical');
    expect(event.data.review_flags).toEqual([flag]);
    expect(event.data.note_sections[0].evidence).toEqual([{ start: 0, end: 5.5 }]);
    const removed = await app.inject({
      method: 'DELETE',
      url: `/notes/v1/webhooks/${hook.json().id}`,
      headers: { 'x-api-key': clinic.admin },
    });
    expect(removed.statusCode).toBe(200);
  });

  it('falls back to verbatim with drafting_invalid when the model answers malformed JSON', async () => {
    chat = (_request, response) => json(response, 200, chatCompletion('{"sections": [{"label": "anamnesis", "sentences": [{"te'));
    const note = await settle({ name: 'Malformado' });
    expect(note.transcription_status).toBe('completed');
    expect(note.note_style).toBe('verbatim');
    expect(note.review_flags).toEqual([{ section: null, sentence: null, reason: 'drafting_invalid', token: null }]);
    expect(note.note_sections.map((s: any) => s.content).join(' ')).toContain('Vou passar omeprazol um miligrama por quilo');
    const txt = await exported(note.id, 'txt');
    expect(txt).toContain('Revisar\n-------\n- A resposta do modelo de redação não pôde ser usada');
    expect(txt).not.toContain('Estilo: Clínico');
  });

  it('falls back to verbatim with drafting_unavailable after a storm of 500s (never failed)', async () => {
    chat = (_request, response) => json(response, 500, { error: { message: 'CUDA out of memory' } });
    const before = chatRequests().length;
    const note = await settle({ name: 'Tempestade' });
    expect(note.transcription_status).toBe('completed');
    expect(note.note_style).toBe('verbatim');
    expect(note.review_flags).toEqual([{ section: null, sentence: null, reason: 'drafting_unavailable', token: null }]);
    expect(chatRequests().length - before).toBe(3); // the drafter's own retries
    expect(logs.some((line) => line.includes('DRAFTING_UNAVAILABLE') && line.includes(note.id))).toBe(true);
  });

  it('keeps the style when a failed note is retried', async () => {
    transcriptionFails = true;
    const id = await uploadNote(app, clinic.editor, { name: 'Repetir', note_style: 'clinical' }, 'consultation.m4a');
    expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('failed');
    expect((await fetchNote(id)).note_style).toBe('clinical');

    transcriptionFails = false;
    const retry = await app.inject({ method: 'POST', url: `/notes/v1/notes/${id}/retry`, headers: { 'x-api-key': clinic.editor } });
    expect(retry.statusCode).toBe(202);
    expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
    const note = await fetchNote(id);
    expect(note.note_style).toBe('clinical');
    expect(note.note_sections[0].content).toBe('Tutora relata vômitos desde anteontem, cerca de 4 vezes ao dia.');
  });

  it('drafts a returning patient with the last signed note as previous context; nothing of it counts as said today', async () => {
    const withDiagnosis = (sentence: string) => ({
      sections: [...GROUNDED.sections, { label: 'diagnosis', sentences: [{ text: sentence, segments: [2] }] }],
    });
    // The first visit: she weighed 11,2 kg then (said, so grounded there).
    const then = SEGMENTS.map((segment, i) => (i === 1 ? { ...segment, text: 'Ela pesa 11,2 kg.' } : segment));
    transcript = { ...TRANSCRIPT, segments: then, text: then.map((segment) => segment.text).join(' ') };
    chat = (_request, response) => json(response, 200, chatCompletion(withDiagnosis('Gastrite aguda; peso 11,2 kg.')));
    const first = await settle({ name: 'Mel', note_style: 'clinical', external_id: 'MEL-CTX' });
    expect(first.note_sections.find((section: { label: string }) => section.label === 'diagnosis').content).toBe(
      'Gastrite aguda; peso 11,2 kg.',
    );
    const signed = await app.inject({
      method: 'POST',
      url: `/notes/v1/notes/${first.id}/sign`,
      headers: { 'x-api-key': clinic.editor },
      payload: { signed_by: { name: 'Dra. Ana', license: 'CRMV-SP 1' }, acknowledge_flags: true },
    });
    expect(signed.statusCode, signed.body).toBe(200);

    // Today the model copies a number that only the previous note holds.
    transcript = TRANSCRIPT;
    chat = (_request, response) => json(response, 200, chatCompletion(withDiagnosis('Peso anterior 11,2 kg; hoje 8,5 kg.')));
    const before = chatRequests().length;
    const second = await settle({ name: 'Mel', note_style: 'clinical', external_id: 'MEL-CTX' });
    const user: string = chatRequest(chatRequests().slice(before)[0]!).messages[1]!.content;
    const [context, today] = user.split('TRANSCRIÇÃO DE HOJE:\n');
    expect(context).toContain('CONSULTA ANTERIOR');
    expect(context).toContain('Diagnóstico: Gastrite aguda; peso 11,2 kg.');
    expect(context).toMatch(/Plano: .*omeprazol/);
    expect(context).not.toMatch(/^\[\d+\]/m);
    expect(today).toBe(SEGMENTS.map((segment, i) => `[${i + 1}] ${segment.text}`).join('\n'));
    expect(second.review_flags).toContainEqual(
      expect.objectContaining({ section: 'diagnosis', reason: 'ungrounded', token: expect.stringContaining('11,2') }),
    );

    // A first visit (no signed note before it) is drafted from its transcript alone.
    const lone = chatRequests().length;
    await settle({ name: 'Nina', note_style: 'clinical', external_id: 'NINA-1' });
    expect(chatRequest(chatRequests().slice(lone)[0]!).messages[1]!.content).not.toContain('CONSULTA ANTERIOR');
  });

  it('never logs the drafting key, the transcript or the draft', () => {
    const text = logs.join('\n');
    expect(text).toContain('note completed');
    expect(text).not.toContain(DRAFT_KEY);
    for (const segment of SEGMENTS) expect(text).not.toContain(segment.text.slice(0, 30));
    expect(text).not.toContain('Tutora relata');
    expect(text).not.toContain(INVENTED_DOSE);
    expect(text).not.toContain('CUDA out of memory');
  });
});

describe('the OpenAPI document', () => {
  it('documents note_style, evidence and review_flags with their reasons, and note_style at upload', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/notes/v1/openapi.json' })).json();
    const text = JSON.stringify(doc);
    const { schemas } = doc.components;
    expect(schemas.ReviewFlag.properties.reason.enum).toEqual([
      'ungrounded',
      'no_citation',
      'invalid_citation',
      'drafting_unavailable',
      'drafting_invalid',
      'vital_mismatch',
      'plan_mismatch',
      'changed_since_last_visit',
      'capture_auto_closed',
      'simulated_transcript',
      'possible_drug_misrecognition',
    ]);
    // The misheard-drug flag's own fields, optional so that every other flag keeps its shape.
    expect(schemas.ReviewFlag.required).toEqual(['section', 'sentence', 'reason', 'token']);
    expect(Object.keys(schemas.ReviewFlag.properties)).toEqual([
      'section',
      'sentence',
      'reason',
      'token',
      'said',
      'suggestion',
      'evidence',
    ]);
    expect(schemas.NoteStyle.enum).toEqual(['verbatim', 'clinical']);
    expect(text).toContain('"evidence"');
    expect(text).toContain('"review_flags"');
    expect(text).toContain('"note_style"');
    expect(doc.paths['/notes'].post.description).toContain('"note_style"?: "verbatim"|"clinical"');
    expect(doc.info.description).toContain('{"sections": [{"label": "<label>", "sentences": [{"text": "…", "segments": [n, …]}]}]}');
    expect(doc.info.description).toContain('numbered lines `[n] text`');
  });
});
