import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiDrafter } from '../../src/providers/drafting/openai.ts';
import { SECTION_LABELS } from '../../src/providers/sectioning/port.ts';
import { chatCompletion, chatRequest, type FakeServer, json, startFakeServer } from './fake-openai-server.ts';

// The drafter against a local server speaking the chat-completions protocol, scripted per test.

const API_KEY = 'sk-draft-7f6e5d4c3b2a1908';
const SEGMENTS = [
  { start: 0, end: 4.2, text: 'Bom dia, o Thor tá mancando da perna de trás esquerda faz três dias.' },
  { start: 4.2, end: 8, text: 'Ele pesa trinta e dois quilos e meio.' },
  { start: 8, end: 12.5, text: 'A temperatura tá trinta e nove e quatro.' },
  { start: 12.5, end: 18, text: 'Vou passar meloxicam zero vírgula um miligrama por quilo, uma vez ao dia, por cinco dias.' },
  { start: 18, end: 22, text: 'E meio comprimido de dipirona de doze em doze horas.' },
  { start: 22, end: 26, text: 'Suspeita de ruptura de ligamento cruzado.' },
  { start: 26, end: 30, text: 'Retorno em sete dias.' },
];
const input = { text: SEGMENTS.map((segment) => segment.text).join(' '), segments: SEGMENTS, language: 'pt' };
const signal = () => new AbortController().signal;

type Sentence = { text: string; segments: number[] };
const GROUNDED: { label: string; sentences: Sentence[] }[] = [
  {
    label: 'anamnesis',
    sentences: [
      { text: 'Tutor relata claudicação do membro pélvico esquerdo há 3 dias.', segments: [1] },
      { text: 'Peso de 32,5 kg.', segments: [2] },
    ],
  },
  { label: 'physical_exam', sentences: [{ text: 'T 39,4 °C.', segments: [3] }] },
  {
    label: 'treatment',
    sentences: [
      { text: 'Meloxicam 0,1 mg/kg a cada 24 h por 5 dias.', segments: [4] },
      { text: 'Dipirona 0,5 comprimido a cada 12 h.', segments: [5] },
    ],
  },
  { label: 'diagnosis', sentences: [{ text: 'Suspeita de ruptura de ligamento cruzado.', segments: [6] }] },
  { label: 'follow_up', sentences: [{ text: 'Retorno em 7 dias.', segments: [7] }] },
];

/** The grounded draft with one sentence of one section replaced. */
function withSentence(label: string, index: number, sentence: Sentence) {
  return GROUNDED.map((section) =>
    section.label === label
      ? { ...section, sentences: section.sentences.map((existing, i) => (i === index ? sentence : existing)) }
      : section,
  );
}

const server: FakeServer = await startFakeServer();
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});
const answer = (content: unknown) => server.handle((_request, response) => json(response, 200, chatCompletion(content)));
const drafter = (options: { timeoutMs?: number; attempts?: number } = {}) =>
  createOpenAiDrafter({ baseUrl: server.baseUrl, apiKey: API_KEY, model: 'gpt-4o-mini', timeoutMs: 5_000, retryDelayMs: 10, ...options });

describe('openai drafter: the contract', () => {
  it('sends the transcript as numbered lines and asks for the sections schema', async () => {
    answer({ sections: GROUNDED });
    await drafter().draft(input, signal());
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = chatRequest(request!);
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.messages[0]!.role).toBe('system');
    expect(body.messages[0]!.content).toContain('segments');
    expect(body.messages[1]!.content).toBe(SEGMENTS.map((segment, i) => `[${i + 1}] ${segment.text}`).join('\n'));
    expect(body.response_format.type).toBe('json_schema');
    const schema = body.response_format.json_schema!.schema as any;
    expect(schema.properties.sections.items.properties.label.enum).toEqual([...SECTION_LABELS]);
    expect(schema.properties.sections.items.properties.sentences.items.required).toEqual(['text', 'segments']);
  });

  it('keeps a grounded draft: canonical order, port titles, sentences joined by a space, evidence of the cited segments', async () => {
    answer({ sections: GROUNDED });
    const outcome = await drafter().draft(input, signal());
    expect(outcome).toEqual({
      ok: true,
      flags: [],
      sections: [
        {
          label: 'anamnesis',
          title: 'Anamnese',
          content: 'Tutor relata claudicação do membro pélvico esquerdo há 3 dias. Peso de 32,5 kg.',
          evidence: [
            { start: 0, end: 4.2 },
            { start: 4.2, end: 8 },
          ],
        },
        { label: 'physical_exam', title: 'Exame Físico', content: 'T 39,4 °C.', evidence: [{ start: 8, end: 12.5 }] },
        {
          label: 'diagnosis',
          title: 'Diagnóstico',
          content: 'Suspeita de ruptura de ligamento cruzado.',
          evidence: [{ start: 22, end: 26 }],
        },
        {
          label: 'treatment',
          title: 'Tratamento',
          content: 'Meloxicam 0,1 mg/kg a cada 24 h por 5 dias. Dipirona 0,5 comprimido a cada 12 h.',
          evidence: [
            { start: 12.5, end: 18 },
            { start: 18, end: 22 },
          ],
        },
        { label: 'follow_up', title: 'Seguimento', content: 'Retorno em 7 dias.', evidence: [{ start: 26, end: 30 }] },
      ],
    });
  });

  it('merges a label given twice and gives a sentence citing several lines each line once, in time order', async () => {
    answer({
      sections: [...GROUNDED, { label: 'anamnesis', sentences: [{ text: 'Claudicação há 3 dias, peso 32,5 kg.', segments: [2, 1, 2] }] }],
    });
    const outcome = await drafter().draft(input, signal());
    if (!outcome.ok) throw new Error('expected a draft');
    const anamnesis = outcome.sections.find((section) => section.label === 'anamnesis')!;
    expect(anamnesis.content).toMatch(/Peso de 32,5 kg\. Claudicação há 3 dias, peso 32,5 kg\.$/);
    expect(anamnesis.evidence).toEqual([
      { start: 0, end: 4.2 },
      { start: 4.2, end: 8 },
    ]);
  });

  it('numbers the sentences of a transcript without segments, and gives no time ranges', async () => {
    answer({ sections: [{ label: 'follow_up', sentences: [{ text: 'Retorno em 7 dias.', segments: [2] }] }] });
    const outcome = await drafter().draft({ text: 'Suspeita de otite. Retorno em sete dias.', segments: [], language: 'pt' }, signal());
    expect(chatRequest(server.requests[0]!).messages[1]!.content).toBe('[1] Suspeita de otite.\n[2] Retorno em sete dias.');
    expect(outcome).toEqual({
      ok: true,
      flags: [],
      sections: [{ label: 'follow_up', title: 'Seguimento', content: 'Retorno em 7 dias.', evidence: [] }],
    });
  });

  it('does not call the server for an empty transcript', async () => {
    expect(await drafter().draft({ text: ' ', segments: [], language: 'pt' }, signal())).toEqual({ ok: true, sections: [], flags: [] });
    expect(server.requests).toHaveLength(0);
  });
});

describe('openai drafter: the grounding check', () => {
  it.each([
    ['a dose that was not said', 'treatment', 0, { text: 'Meloxicam 0,2 mg/kg a cada 24 h por 5 dias.', segments: [4] }, ['0,2']],
    ['a frequency that was not said', 'treatment', 1, { text: 'Dipirona 0,5 comprimido a cada 8 h.', segments: [5] }, ['a cada 8 h']],
    ['a drug that was not named', 'treatment', 1, { text: 'Tramadol 0,5 comprimido a cada 12 h.', segments: [5] }, ['Tramadol']],
    [
      'the wrong side',
      'anamnesis',
      0,
      { text: 'Tutor relata claudicação do membro pélvico direito há 3 dias.', segments: [1] },
      ['direito'],
    ],
    ['a duration that was not said', 'anamnesis', 0, { text: 'Claudicação há 5 dias.', segments: [1] }, ['5']],
    ['a fact cited from the wrong line', 'physical_exam', 0, { text: 'T 39,4 °C.', segments: [2] }, ['39,4', '°C']],
  ])('flags %s and removes the sentence', async (_case, label, index, sentence, tokens) => {
    answer({ sections: withSentence(label, index, sentence) });
    const outcome = await drafter().draft(input, signal());
    if (!outcome.ok) throw new Error('expected a draft');
    expect(outcome.flags).toEqual(tokens.map((token) => ({ section: label, sentence: sentence.text, reason: 'ungrounded', token })));
    const section = outcome.sections.find((s) => s.label === label);
    expect(section?.content ?? '').not.toContain(sentence.text);
    // The rest of the draft stands.
    expect(outcome.sections.find((s) => s.label === 'diagnosis')!.content).toBe('Suspeita de ruptura de ligamento cruzado.');
  });

  it('does not flag numbers said as words and written as digits, or the other way round', async () => {
    answer({
      sections: [
        {
          label: 'treatment',
          sentences: [
            { text: 'Meloxicam zero vírgula um miligrama por quilo uma vez ao dia por cinco dias.', segments: [4] },
            { text: 'Dipirona ½ comprimido 12/12 h.', segments: [5] },
          ],
        },
        { label: 'physical_exam', sentences: [{ text: 'Temperatura de 39,4 graus; peso 32,5 kg.', segments: [2, 3] }] },
      ],
    });
    const outcome = await drafter().draft(input, signal());
    expect(outcome).toMatchObject({ ok: true, flags: [] });
  });

  it('flags and removes a sentence without citations; drops a section left empty', async () => {
    answer({ sections: withSentence('physical_exam', 0, { text: 'Mucosas normocoradas.', segments: [] }) });
    const outcome = await drafter().draft(input, signal());
    if (!outcome.ok) throw new Error('expected a draft');
    expect(outcome.flags).toEqual([{ section: 'physical_exam', sentence: 'Mucosas normocoradas.', reason: 'no_citation', token: null }]);
    expect(outcome.sections.map((section) => section.label)).not.toContain('physical_exam');
  });
});

describe('openai drafter: unusable answers become a verbatim fallback', () => {
  const invalid = { section: null, sentence: null, reason: 'drafting_invalid', token: null };

  it.each([
    ['content that is not JSON', chatCompletion('{"sections": [{"label": "anamnesis", "sentences": [')],
    ['prose instead of JSON', chatCompletion('Claro! Aqui está o prontuário: ...')],
    ['an unknown label', chatCompletion({ sections: [{ label: 'prognosis', sentences: [{ text: 'Bom.', segments: [6] }] }] })],
    ['a missing field', chatCompletion({ sections: [{ label: 'anamnesis' }] })],
    ['a body that is not a chat completion', { result: 'ok' }],
    ['no sections', chatCompletion({ sections: [] })],
    ['nothing grounded', chatCompletion({ sections: [{ label: 'treatment', sentences: [{ text: 'Tramadol 4 mg/kg.', segments: [4] }] }] })],
  ])('%s → drafting_invalid', async (_case, body) => {
    server.handle((_request, response) => json(response, 200, body));
    const outcome = await drafter().draft(input, signal());
    expect(outcome).toMatchObject({ ok: false, code: 'DRAFTING_INVALID_RESPONSE' });
    expect(outcome.flags[0]).toEqual(invalid);
    expect(server.requests).toHaveLength(1); // a bad answer is not asked again
  });

  it('a citation out of range discards the draft, naming the sentence', async () => {
    answer({ sections: withSentence('diagnosis', 0, { text: 'Suspeita de ruptura de ligamento cruzado.', segments: [6, 42] }) });
    const outcome = await drafter().draft(input, signal());
    expect(outcome).toMatchObject({ ok: false, code: 'DRAFTING_INVALID_RESPONSE' });
    expect(outcome.flags).toEqual([
      invalid,
      { section: 'diagnosis', sentence: 'Suspeita de ruptura de ligamento cruzado.', reason: 'invalid_citation', token: '42' },
    ]);
  });

  it('retries with json_object when the server rejects json_schema', async () => {
    server.handle((_request, response, index) =>
      index === 0
        ? json(response, 400, { error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported." } })
        : json(response, 200, chatCompletion({ sections: GROUNDED })),
    );
    const outcome = await drafter().draft(input, signal());
    expect(outcome.ok).toBe(true);
    expect(server.requests.map((request) => chatRequest(request).response_format.type)).toEqual(['json_schema', 'json_object']);
  });

  it('retries with json_object when the model refuses under json_schema', async () => {
    server.handle((_request, response, index) =>
      index === 0
        ? json(response, 200, { choices: [{ message: { role: 'assistant', content: null, refusal: 'I cannot comply' } }] })
        : json(response, 200, chatCompletion({ sections: GROUNDED })),
    );
    expect((await drafter().draft(input, signal())).ok).toBe(true);
    expect(server.requests.map((request) => chatRequest(request).response_format.type)).toEqual(['json_schema', 'json_object']);
  });

  it('retries a 5xx and uses the answer that follows', async () => {
    server.handle((_request, response, index) =>
      index === 0
        ? json(response, 503, { error: { message: 'loading model' } })
        : json(response, 200, chatCompletion({ sections: GROUNDED })),
    );
    expect((await drafter().draft(input, signal())).ok).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    [500, 'DRAFTING_UNAVAILABLE', 3],
    [429, 'DRAFTING_RATE_LIMITED', 3],
    [401, 'DRAFTING_REJECTED', 1],
    [404, 'DRAFTING_REJECTED', 1],
  ])('HTTP %i → %s after %i request(s): drafting_unavailable, no secret and no server words', async (status, code, requests) => {
    server.handle((_request, response) => json(response, status, { error: { message: `bad key ${API_KEY}: Thor tá mancando` } }));
    const outcome = await drafter().draft(input, signal());
    expect(outcome).toEqual({
      ok: false,
      code,
      message: expect.stringContaining(`HTTP ${status}`),
      flags: [{ section: null, sentence: null, reason: 'drafting_unavailable', token: null }],
    });
    expect(server.requests).toHaveLength(requests);
    expect(JSON.stringify(outcome)).not.toContain(API_KEY);
    expect(JSON.stringify(outcome)).not.toContain('Thor');
  });

  it('a server that never answers → DRAFTING_TIMEOUT after every attempt', async () => {
    server.handle(() => {});
    const outcome = await drafter({ timeoutMs: 200, attempts: 2 }).draft(input, signal());
    expect(outcome).toMatchObject({ ok: false, code: 'DRAFTING_TIMEOUT', flags: [{ reason: 'drafting_unavailable' }] });
    expect(server.requests).toHaveLength(2);
  });

  it('throws when the job is aborted, so the note goes to another worker instead of a fallback', async () => {
    server.handle(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await expect(drafter().draft(input, controller.signal)).rejects.toBeDefined();
  });
});
