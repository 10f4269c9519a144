import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, eventually } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { chatCompletion, chatRequest, type FakeHandler, json, startFakeServer } from '../providers/fake-openai-server.ts';
import { startReceiver } from './webhooks-receiver.ts';

// Templates through the whole path: upload → speech-to-text (a local OpenAI-compatible fake) → the
// rules sectioner placing each sentence by its base label in the template's sections, or the
// drafter (the same fake, chat completions) asked for the template's sections → fetch, export, retry.

const SPOKEN = [
  ['Anamnese: ', 'a Mel é uma cadela poodle de oito anos, está coçando muito as orelhas há três semanas.'],
  ['', 'A tutora conta que dá banho toda semana com xampu de farmácia.'],
  ['Exame físico: ', 'temperatura trinta e oito e nove, otite com secreção marrom nas duas orelhas.'],
  ['', 'Pápulas e alopecia na região ventral do abdômen.'],
  ['Diagnóstico: ', 'otite externa bilateral por Malassezia, suspeita de dermatite atópica.'],
  ['Tratamento: ', 'limpeza dos ouvidos com ceruminolítico a cada dois dias.'],
  ['', 'Retorno em quinze dias para reavaliar as orelhas.'],
  ['', 'Aplicar a pomada otológica duas vezes ao dia por catorze dias.'],
  ['Observações: ', 'a tutora autorizou o orçamento e vai pagar no cartão.'],
  ['', 'Se a coceira piorar ou aparecer sangue, trazer antes do retorno.'],
] as const;
/** What each sentence must leave in the note: its words, without the spoken heading. */
const SENTENCES = SPOKEN.map(([, sentence]) => sentence);
const SEGMENTS = SPOKEN.map(([heading, sentence], i) => ({ start: i * 2, end: i * 2 + 2, text: `${heading}${sentence}` }));
const TRANSCRIPT = { text: SEGMENTS.map((s) => s.text).join(' '), language: 'portuguese', duration: 20, segments: SEGMENTS };
const [ANAMNESIS_1, ANAMNESIS_2, EXAM_1, EXAM_2, DIAGNOSIS, TREATMENT_1, RETURN, TREATMENT_2, CONSENT, WARNING] = SENTENCES;

const DERMA = {
  slug: 'dermatologia',
  name: 'Dermatologia',
  sections: [
    {
      label: 'historico',
      title: 'Histórico',
      includes: ['anamnesis'],
      instructions: 'Tempo de evolução, prurido, banhos e produtos usados.',
    },
    {
      label: 'lesoes',
      title: 'Lesões',
      includes: ['physical_exam'],
      instructions: 'Distribuição e tipo de cada lesão (pápula, pústula, colarete, alopecia), sem abreviações.',
    },
    { label: 'diagnostico', title: 'Diagnóstico', includes: ['diagnosis'] },
    { label: 'conduta', title: 'Conduta', includes: ['treatment', 'follow_up'] },
    { label: 'outros', title: 'Outros', includes: ['observations'] },
    { label: 'resumo_tutor', title: 'Resumo para o tutor', includes: [], instructions: 'Duas frases simples, sem termos técnicos.' },
  ],
};

const remote = await startFakeServer();
afterAll(() => remote.close());
let transcriptionFails = false;
let chat: FakeHandler = (_request, response) => json(response, 500, { error: { message: 'no draft expected' } });
remote.handle((request, response, index) => {
  if (request.path.endsWith('/audio/transcriptions')) {
    if (transcriptionFails) return json(response, 400, { error: { message: 'unsupported audio' } });
    return json(response, 200, TRANSCRIPT);
  }
  return chat(request, response, index);
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

beforeEach(() => {
  transcriptionFails = false;
});

async function createTemplate(body: object) {
  const response = await app.inject({ method: 'POST', url: '/notes/v1/templates', headers: as(clinic.admin), payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data;
}

async function fetchNote(id: string) {
  return (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.viewer) })).json().data;
}

async function settle(metadata: object) {
  const id = await uploadNote(app, clinic.editor, metadata, 'consultation.m4a');
  expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
  return fetchNote(id);
}

const rows = (note: any) => note.note_sections.map((s: any) => [s.label, s.title, s.content, s.order]);

/** Every sentence of the transcript exactly once across the note's sections. */
function expectEverySentenceOnce(note: any) {
  const all = note.note_sections.map((s: any) => s.content).join('\n');
  for (const sentence of SENTENCES) expect(all.split(sentence).length - 1, sentence).toBe(1);
}

const exported = async (id: string, format: 'txt' | 'rtf') =>
  (await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/export?format=${format}`, headers: as(clinic.viewer) })).body;

let soapNoteId = '';
let dermaNoteId = '';

describe('verbatim notes in templates', () => {
  it('an administrator creates a dermatology template and makes SOAP the default: two notes come back in SOAP, one in dermatology, each with every sentence', async () => {
    await createTemplate(DERMA);
    const defaulted = await app.inject({
      method: 'PATCH',
      url: '/notes/v1/settings',
      headers: as(clinic.admin),
      payload: { default_template: 'soap' },
    });
    expect(defaulted.json().data.default_template).toBe('soap');

    const [first, second, third] = await Promise.all([
      settle({ name: 'Mel' }),
      settle({ name: 'Mel de novo' }),
      settle({ name: 'Mel derma', template: 'dermatologia' }),
    ]);
    for (const soap of [first, second]) {
      expect(soap.template).toEqual({ slug: 'soap', name: 'SOAP' });
      expect(rows(soap)).toEqual([
        ['subjetivo', 'Subjetivo', `${ANAMNESIS_1} ${ANAMNESIS_2}`, '1'],
        ['objetivo', 'Objetivo', `${EXAM_1} ${EXAM_2}`, '2'],
        ['avaliacao', 'Avaliação', DIAGNOSIS, '3'],
        // Treatment, follow-up and observations together, in the order they were said.
        ['plano', 'Plano', [TREATMENT_1, RETURN, TREATMENT_2, CONSENT, WARNING].join(' '), '4'],
      ]);
      expectEverySentenceOnce(soap);
      expect(soap.note_sections[3].evidence.map((range: any) => range.start)).toEqual([10, 12, 14, 16, 18]);
    }
    expect(third.template).toEqual({ slug: 'dermatologia', name: 'Dermatologia' });
    // The section gathering nothing is written only by the drafter: absent from a verbatim note.
    expect(rows(third)).toEqual([
      ['historico', 'Histórico', `${ANAMNESIS_1} ${ANAMNESIS_2}`, '1'],
      ['lesoes', 'Lesões', `${EXAM_1} ${EXAM_2}`, '2'],
      ['diagnostico', 'Diagnóstico', DIAGNOSIS, '3'],
      ['conduta', 'Conduta', [TREATMENT_1, RETURN, TREATMENT_2, WARNING].join(' '), '4'],
      ['outros', 'Outros', CONSENT, '5'],
    ]);
    expectEverySentenceOnce(third);
    soapNoteId = first.id;
    dermaNoteId = third.id;
  });

  it('padrao writes the six base sections as before', async () => {
    const note = await settle({ name: 'Mel padrão', template: 'padrao' });
    expect(note.template).toEqual({ slug: 'padrao', name: 'Padrão' });
    expect(rows(note)).toEqual([
      ['anamnesis', 'Anamnese', `${ANAMNESIS_1} ${ANAMNESIS_2}`, '1'],
      ['physical_exam', 'Exame Físico', `${EXAM_1} ${EXAM_2}`, '2'],
      ['diagnosis', 'Diagnóstico', DIAGNOSIS, '3'],
      ['treatment', 'Tratamento', `${TREATMENT_1} ${TREATMENT_2}`, '4'],
      ['observations', 'Observações', CONSENT, '5'],
      ['follow_up', 'Seguimento', `${RETURN} ${WARNING}`, '6'],
    ]);
  });

  it('one section gathering all six labels holds the whole consultation in the order it was said', async () => {
    await createTemplate({
      slug: 'nota-unica',
      name: 'Nota única',
      sections: [
        { label: 'nota', title: 'Nota', includes: ['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'observations', 'follow_up'] },
      ],
    });
    const note = await settle({ name: 'Mel única', template: 'nota-unica' });
    expect(rows(note)).toEqual([['nota', 'Nota', SENTENCES.join(' '), '1']]);
    expect(note.note_sections[0].evidence).toHaveLength(SEGMENTS.length);
  });

  it('exports a SOAP note to TXT and RTF with its sections in order, and edits its sections like any other', async () => {
    const txt = await exported(soapNoteId, 'txt');
    const titles = ['Subjetivo\n---------\n', 'Objetivo\n--------\n', 'Avaliação\n---------\n', 'Plano\n-----\n'];
    const at = titles.map((title) => txt.indexOf(title));
    expect(at.every((index) => index > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(txt).toContain(`Plano\n-----\n${[TREATMENT_1, RETURN, TREATMENT_2, CONSENT, WARNING].join(' ')}`);
    expect(txt).not.toContain('Anamnese');

    const rtf = await exported(soapNoteId, 'rtf');
    expect(rtf.startsWith('{\\rtf1')).toBe(true);
    const rtfAt = ['Subjetivo', 'Objetivo', 'Avalia', 'Plano'].map((title) => rtf.indexOf(title));
    expect(rtfAt.every((index) => index > 0)).toBe(true);
    expect([...rtfAt].sort((a, b) => a - b)).toEqual(rtfAt);
    expect(rtf).toContain('ceruminol');

    const plano = (await fetchNote(soapNoteId)).note_sections[3];
    const edited = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/note_sections?section_id=${plano.id}`,
      headers: as(clinic.editor),
      payload: { title: 'Plano', content: `${plano.content} Revisado.`, order: '4' },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ label: 'plano', title: 'Plano', order: '4' });
    expect(await exported(soapNoteId, 'txt')).toContain(`${WARNING} Revisado.`);
  });
});

describe('a note keeps the template it was made with', () => {
  it('a retry uses the template as it was at upload, and later changes or a deletion never alter the note', async () => {
    const template = await createTemplate({
      slug: 'retorno',
      name: 'Retorno',
      sections: [
        { label: 'antes', title: 'Antes', includes: ['anamnesis', 'physical_exam'] },
        { label: 'depois', title: 'Depois', includes: ['diagnosis', 'treatment', 'observations', 'follow_up'] },
      ],
    });
    transcriptionFails = true;
    const id = await uploadNote(app, clinic.editor, { name: 'Retentativa', template: 'retorno' }, 'consultation.m4a');
    expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('failed');
    expect((await fetchNote(id)).template).toEqual({ slug: 'retorno', name: 'Retorno' });

    const changed = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/templates/${template.id}`,
      headers: as(clinic.admin),
      payload: {
        name: 'Retorno novo',
        sections: [
          { label: 'tudo', title: 'Tudo', includes: ['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'observations', 'follow_up'] },
        ],
      },
    });
    expect(changed.statusCode).toBe(200);

    transcriptionFails = false;
    const retry = await app.inject({ method: 'POST', url: `/notes/v1/notes/${id}/retry`, headers: as(clinic.editor) });
    expect(retry.statusCode).toBe(202);
    expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
    const note = await fetchNote(id);
    expect(note.template).toEqual({ slug: 'retorno', name: 'Retorno' });
    expect(rows(note)).toEqual([
      ['antes', 'Antes', [ANAMNESIS_1, ANAMNESIS_2, EXAM_1, EXAM_2].join(' '), '1'],
      ['depois', 'Depois', [DIAGNOSIS, TREATMENT_1, RETURN, TREATMENT_2, CONSENT, WARNING].join(' '), '2'],
    ]);

    expect((await app.inject({ method: 'DELETE', url: `/notes/v1/templates/${template.id}`, headers: as(clinic.admin) })).statusCode).toBe(
      204,
    );
    const templates = (await app.inject({ method: 'GET', url: '/notes/v1/templates', headers: as(clinic.viewer) })).json().data;
    const dermaId = templates.find((t: any) => t.slug === 'dermatologia').id;
    const rename = (name: string) =>
      app.inject({ method: 'PATCH', url: `/notes/v1/templates/${dermaId}`, headers: as(clinic.admin), payload: { name } });
    const dermaRenamed = await rename('Derma 2');
    expect(dermaRenamed.statusCode).toBe(200);
    const after = await fetchNote(id);
    expect(after.template).toEqual({ slug: 'retorno', name: 'Retorno' });
    expect(rows(after)).toEqual(rows(note));
    expect((await fetchNote(dermaNoteId)).template).toEqual({ slug: 'dermatologia', name: 'Dermatologia' });
    await rename('Dermatologia');
  });
});

describe('clinical notes in templates', () => {
  const DRAFT = {
    sections: [
      // Out of the template's order on purpose: the note follows the template.
      { label: 'resumo_tutor', sentences: [{ text: 'A Mel tem uma inflamação nas orelhas causada por fungo.', segments: [3, 5] }] },
      {
        label: 'historico',
        sentences: [{ text: 'Prurido auricular há 3 semanas; banhos semanais com xampu de farmácia.', segments: [1, 2] }],
      },
      {
        label: 'lesoes',
        sentences: [
          { text: 'T 38,9 °C; otite com secreção marrom nas duas orelhas.', segments: [3] },
          { text: 'Pápulas e alopecia em abdômen ventral, 5 lesões.', segments: [4] },
        ],
      },
      {
        label: 'conduta',
        sentences: [{ text: 'Limpeza auricular com ceruminolítico a cada 48 h. Retorno em 15 dias.', segments: [6, 7] }],
      },
    ],
  };

  it('asks the drafter for the template sections with their instructions and follows the template, in the webhook too', async () => {
    const receiver = await startReceiver();
    const hook = await app.inject({
      method: 'POST',
      url: '/notes/v1/webhooks',
      headers: as(clinic.admin),
      payload: { url: receiver.url, events: ['note.completed'] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    let body: any;
    chat = (request, response) => {
      body = chatRequest(request);
      json(response, 200, chatCompletion(DRAFT));
    };
    const note = await settle({ name: 'Mel clínica', note_style: 'clinical', template: 'dermatologia' });

    const system = body.messages[0].content as string;
    for (const section of DERMA.sections) expect(system).toContain(`- ${section.label} ("${section.title}")`);
    expect(system).toContain('Instruções da clínica para esta seção: Distribuição e tipo de cada lesão');
    expect(system).toContain('Duas frases simples, sem termos técnicos.');
    expect(body.response_format.json_schema.schema.properties.sections.items.properties.label.enum).toEqual(
      DERMA.sections.map((section) => section.label),
    );

    expect(note.note_style).toBe('clinical');
    expect(note.template).toEqual({ slug: 'dermatologia', name: 'Dermatologia' });
    expect(rows(note)).toEqual([
      ['historico', 'Histórico', 'Prurido auricular há 3 semanas; banhos semanais com xampu de farmácia.', '1'],
      ['lesoes', 'Lesões', 'T 38,9 °C; otite com secreção marrom nas duas orelhas.', '2'],
      ['conduta', 'Conduta', 'Limpeza auricular com ceruminolítico a cada 48 h. Retorno em 15 dias.', '3'],
      ['resumo_tutor', 'Resumo para o tutor', 'A Mel tem uma inflamação nas orelhas causada por fungo.', '4'],
    ]);
    // The invented count is removed and flagged under the template's label and title.
    expect(note.review_flags).toEqual([
      { section: 'lesoes', sentence: 'Pápulas e alopecia em abdômen ventral, 5 lesões.', reason: 'ungrounded', token: '5' },
    ]);
    expect(await exported(note.id, 'txt')).toContain('- Lesões: "Pápulas e alopecia em abdômen ventral, 5 lesões." — "5" não consta');

    const [delivery] = await eventually(async () => {
      const found = receiver.ofType('note.completed').filter((entry) => JSON.parse(entry.body).data.note_id === note.id);
      return found.length > 0 && found;
    }, 15_000);
    const event = JSON.parse(delivery!.body).data;
    expect(event.template).toEqual({ slug: 'dermatologia', name: 'Dermatologia' });
    expect(event.note_sections.map((s: any) => [s.label, s.title])).toEqual(rows(note).map((row: any) => [row[0], row[1]]));
    expect(event.review_flags[0].section).toBe('lesoes');
    await app.inject({ method: 'DELETE', url: `/notes/v1/webhooks/${hook.json().id}`, headers: as(clinic.admin) });
  });

  it("refuses a draft whose labels are not the template's, and writes the note verbatim in the template", async () => {
    chat = (_request, response) =>
      json(
        response,
        200,
        chatCompletion({ sections: [{ label: 'treatment', sentences: [{ text: 'Limpeza auricular.', segments: [6] }] }] }),
      );
    const note = await settle({ name: 'Mel inválida', note_style: 'clinical', template: 'dermatologia' });
    expect(note.note_style).toBe('verbatim');
    expect(note.review_flags).toEqual([{ section: null, sentence: null, reason: 'drafting_invalid', token: null }]);
    expect(note.note_sections.map((s: any) => s.label)).toEqual(['historico', 'lesoes', 'diagnostico', 'conduta', 'outros']);
    expectEverySentenceOnce(note);
  });
});
