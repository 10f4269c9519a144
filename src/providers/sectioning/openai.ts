// The `openai` sectioner: any OpenAI-compatible `POST {baseUrl}/chat/completions` endpoint with
// structured JSON output. A model can answer badly; whenever its answer is not usable the rules
// sectioner decides instead, so a note always gets sections. HTTP failures are errors (retryable
// or not), as for the transcriber.

import { z } from 'zod';
import { fold } from '../../language/fold.ts';
import { errorCodes, type ProviderResponse, postChatCompletion, serverMessage, statusError } from '../http.ts';
import { SECTIONS_JSON_SCHEMA, SYSTEM_PROMPT } from './openai-prompt.ts';
import { SECTION_LABELS, SECTION_TITLES, type Section, type Sectioner, type SectioningInput, type SectionLabel } from './port.ts';

export interface OpenAiSectionerOptions {
  /** Ends in `/v1`, as in the OpenAI SDKs. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  /** Decides when the model's answer is unusable (normally the rules sectioner). */
  fallback: Sectioner;
  /** Told why the fallback was used; the reason never holds the key or the transcript. */
  onFallback?: (reason: string) => void;
}

const codes = errorCodes('SECTIONING');
const serverName = 'sectioning server';

const ChatCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }) })).min(1),
});
const ModelSections = z.object({
  sections: z.array(z.object({ label: z.enum(SECTION_LABELS), content: z.string() })),
});

// The model must keep the transcript's words: a share this low means it dropped or summarised.
const MIN_WORD_COVERAGE = 0.85;
// ... and this much more means it invented or repeated.
const MAX_WORD_GROWTH = 1.15;

type Outcome = { sections: Section[] } | { unusable: string };

function words(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Share of the transcript's words found in the sections, and the sections' size relative to it. */
function wordCheck(transcript: string, sections: Section[]): { coverage: number; growth: number } {
  const available = new Map<string, number>();
  for (const word of words(transcript)) available.set(word, (available.get(word) ?? 0) + 1);
  const produced = sections.flatMap((section) => words(section.content));
  let found = 0;
  for (const word of produced) {
    const left = available.get(word) ?? 0;
    if (left > 0) {
      found++;
      available.set(word, left - 1);
    }
  }
  const total = words(transcript).length;
  return { coverage: total === 0 ? 1 : found / total, growth: total === 0 ? 1 : produced.length / total };
}

function toSections(modelSections: z.infer<typeof ModelSections>['sections']): Section[] {
  // A label given twice is merged rather than rejected: the sentences are still all there.
  const contents = new Map<SectionLabel, string[]>();
  for (const { label, content } of modelSections) {
    if (content.trim() !== '') contents.set(label, [...(contents.get(label) ?? []), content.trim()]);
  }
  return SECTION_LABELS.filter((label) => contents.has(label)).map((label) => ({
    label,
    title: SECTION_TITLES[label],
    content: contents.get(label)!.join('\n'),
  }));
}

function interpret(response: ProviderResponse, transcript: string): Outcome {
  let completion: z.infer<typeof ChatCompletion>;
  let answer: unknown;
  try {
    completion = ChatCompletion.parse(JSON.parse(response.body));
    const message = completion.choices[0]!.message;
    if (!message.content) return { unusable: message.refusal ? 'the model refused' : 'the model gave no content' };
    answer = JSON.parse(message.content);
  } catch {
    return { unusable: 'the answer is not JSON of the expected shape' };
  }
  const parsed = ModelSections.safeParse(answer);
  if (!parsed.success) return { unusable: 'the sections do not match the schema (unknown label or missing field)' };
  const sections = toSections(parsed.data.sections);
  if (sections.length === 0 && transcript.trim() !== '') return { unusable: 'the model returned no sections' };
  const { coverage, growth } = wordCheck(transcript, sections);
  if (coverage < MIN_WORD_COVERAGE) return { unusable: `the sections keep only ${Math.round(coverage * 100)} % of the transcript's words` };
  if (growth > MAX_WORD_GROWTH) return { unusable: `the sections are ${Math.round(growth * 100)} % of the transcript's length` };
  return { sections };
}

/** Servers without structured outputs (older vLLM, llama.cpp builds) say so with a 400. */
function rejectsJsonSchema(response: ProviderResponse): boolean {
  return response.status === 400 && /response_format|json_schema/i.test(serverMessage(response.body));
}

export function createOpenAiSectioner(options: OpenAiSectionerOptions): Sectioner {
  const secrets = [options.apiKey];

  function request(input: SectioningInput, responseFormat: 'json_schema' | 'json_object', signal: AbortSignal) {
    const jsonSchema = responseFormat === 'json_schema' ? SECTIONS_JSON_SCHEMA : null;
    return postChatCompletion({ ...options, system: SYSTEM_PROMPT, user: input.text, jsonSchema }, signal, { codes, serverName });
  }

  return {
    name: 'openai',
    async section(input, signal) {
      if (input.text.trim() === '') return [];
      let response = await request(input, 'json_schema', signal);
      if (rejectsJsonSchema(response)) response = await request(input, 'json_object', signal);
      if (response.status < 200 || response.status >= 300) throw statusError(response, { codes, serverName, secrets });

      const outcome = interpret(response, input.text);
      if ('sections' in outcome) return outcome.sections;
      options.onFallback?.(`${outcome.unusable}; using the ${options.fallback.name} sectioner`);
      return options.fallback.section(input, signal);
    },
  };
}
