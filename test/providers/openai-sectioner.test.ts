import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/providers/provider-error.ts';
import { createOpenAiSectioner } from '../../src/providers/sectioning/openai.ts';
import { SECTION_LABELS } from '../../src/providers/sectioning/port.ts';
import { createRulesSectioner } from '../../src/providers/sectioning/rules.ts';
import { type FakeServer, json, startFakeServer } from './fake-openai-server.ts';

const API_KEY = 'sk-sect-0b9e8d7c6a5f4e3d2c1b';
const TRANSCRIPT =
  'Anamnese: tutor relata que a Mel vomita há dois dias. Exame físico: temperatura 39,2 e dor abdominal. ' +
  'Diagnóstico: suspeita de gastrite. Tratamento: omeprazol 1 mg/kg a cada 24 horas. Retorno em sete dias.';
const input = { text: TRANSCRIPT, segments: [], language: 'pt' };
const signal = () => new AbortController().signal;

const server: FakeServer = await startFakeServer();
afterAll(() => server.close());
const fallbackReasons: string[] = [];
beforeEach(() => {
  server.requests.length = 0;
  fallbackReasons.length = 0;
});

const rules = createRulesSectioner();
const sectioner = (timeoutMs = 5_000) =>
  createOpenAiSectioner({
    baseUrl: server.baseUrl,
    apiKey: API_KEY,
    model: 'gpt-4o-mini',
    timeoutMs,
    fallback: rules,
    onFallback: (reason) => fallbackReasons.push(reason),
  });

/** A chat completion whose message content is `content` (a string, or JSON-encoded). */
function completion(content: unknown) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: typeof content === 'string' ? content : JSON.stringify(content) } }],
  };
}

const modelSections = [
  { label: 'treatment', content: 'omeprazol 1 mg/kg a cada 24 horas.' },
  { label: 'anamnesis', content: 'tutor relata que a Mel vomita há dois dias.' },
  { label: 'physical_exam', content: 'temperatura 39,2 e dor abdominal.' },
  { label: 'diagnosis', content: 'suspeita de gastrite.' },
  { label: 'follow_up', content: 'Retorno em sete dias.' },
  { label: 'observations', content: '  ' },
];

describe('openai sectioner', () => {
  it('asks for structured JSON and returns the sections in canonical order with the port titles', async () => {
    server.handle((_request, response) => json(response, 200, completion({ sections: modelSections })));
    const sections = await sectioner().section(input, signal());

    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = JSON.parse(request!.body.toString('utf8'));
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('veterinária') });
    expect(body.messages[1]).toEqual({ role: 'user', content: TRANSCRIPT });
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema.schema.properties.sections.items.properties.label.enum).toEqual([...SECTION_LABELS]);

    expect(sections.map((s) => [s.label, s.title])).toEqual([
      ['anamnesis', 'Anamnese'],
      ['physical_exam', 'Exame Físico'],
      ['diagnosis', 'Diagnóstico'],
      ['treatment', 'Tratamento'],
      ['follow_up', 'Seguimento'],
    ]);
    expect(fallbackReasons).toEqual([]);
  });

  it('merges a label the model gave twice', async () => {
    const twice = [...modelSections.slice(0, 4), { label: 'anamnesis', content: 'Retorno em sete dias.' }];
    server.handle((_request, response) => json(response, 200, completion({ sections: twice })));
    const sections = await sectioner().section(input, signal());
    expect(sections.find((s) => s.label === 'anamnesis')!.content).toBe(
      'tutor relata que a Mel vomita há dois dias.\nRetorno em sete dias.',
    );
  });

  it.each([
    ['content that is not JSON', 'not JSON', completion('Claro! Aqui estão as seções: ...')],
    [
      'a label outside the list',
      'schema',
      completion({ sections: [...modelSections.slice(0, 4), { label: 'prognosis', content: 'Retorno em sete dias.' }] }),
    ],
    ['a missing field', 'schema', completion({ sections: [{ label: 'anamnesis' }] })],
    ['a summary that drops most sentences', 'keep only', completion({ sections: [{ label: 'diagnosis', content: 'Gastrite.' }] })],
    [
      'invented text',
      'length',
      completion({
        sections: [
          ...modelSections,
          {
            label: 'observations',
            content: 'Paciente muito dócil e brincalhão, sem outras alterações relevantes dignas de nota neste momento.',
          },
        ],
      }),
    ],
    ['a refusal', 'refused', { choices: [{ message: { role: 'assistant', content: null, refusal: 'I cannot help' } }] }],
    ['a body that is not a chat completion', 'not JSON', { result: 'ok' }],
  ])('falls back to the rules sectioner on %s', async (_case, reason, answer) => {
    server.handle((_request, response) => json(response, 200, answer));
    const sections = await sectioner().section(input, signal());
    expect(sections).toEqual(await rules.section(input, signal()));
    expect(fallbackReasons).toHaveLength(1);
    expect(fallbackReasons[0]).toContain(reason);
    expect(fallbackReasons[0]).not.toContain(API_KEY);
    expect(fallbackReasons[0]).not.toContain('Mel');
  });

  it('retries with json_object when the server does not support json_schema', async () => {
    server.handle((_request, response, index) =>
      index === 0
        ? json(response, 400, {
            error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model." },
          })
        : json(response, 200, completion({ sections: modelSections })),
    );
    const sections = await sectioner().section(input, signal());
    expect(server.requests).toHaveLength(2);
    expect(JSON.parse(server.requests[1]!.body.toString('utf8')).response_format).toEqual({ type: 'json_object' });
    expect(sections).toHaveLength(5);
  });

  it.each([
    [500, 'SECTIONING_UNAVAILABLE', true],
    [502, 'SECTIONING_UNAVAILABLE', true],
    [429, 'SECTIONING_RATE_LIMITED', true],
    [400, 'SECTIONING_REJECTED', false],
    [401, 'SECTIONING_REJECTED', false],
    [404, 'SECTIONING_REJECTED', false],
  ])('HTTP %i → %s (retryable: %s), key redacted, no fallback', async (status, code, retryable) => {
    server.handle((_request, response) => json(response, status, { error: { message: `bad key ${API_KEY}` } }));
    const error = await sectioner()
      .section(input, signal())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code, retryable });
    expect((error as Error).message).not.toContain(API_KEY);
    expect(fallbackReasons).toEqual([]);
  });

  it('times out (retryable) when the server does not answer', async () => {
    server.handle(() => {});
    await expect(sectioner(300).section(input, signal())).rejects.toMatchObject({ code: 'SECTIONING_TIMEOUT', retryable: true });
  });

  it('does not call the server for an empty transcript', async () => {
    expect(await sectioner().section({ text: '  ', segments: [], language: 'pt' }, signal())).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});
