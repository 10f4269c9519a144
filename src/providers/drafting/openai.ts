// The `openai` drafter: any OpenAI-compatible `POST {baseUrl}/chat/completions` (OpenAI, Azure
// OpenAI, Ollama, vLLM, llama.cpp server, LiteLLM) with structured JSON output. Retryable failures
// (timeouts, 429, 5xx, network) are retried here with backoff, so the transcript is not redone;
// whatever still fails, or answers unusably, becomes a `{ ok: false }` outcome: the note is then
// written verbatim with a flag, never failed because of the model.

import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { errorCodes, type ProviderResponse, postChatCompletion, serverMessage, statusError } from '../http.ts';
import { ProviderError } from '../provider-error.ts';
import { numberedLines, renderLines } from './lines.ts';
import {
  BASE_SECTIONS,
  type Drafter,
  type DraftingInput,
  type DraftOutcome,
  type RewriteInput,
  type RewriteOutcome,
  type TemplateSection,
} from './port.ts';
import { draftJsonSchema, previousVisitBlock, rewritePrompt, systemPrompt } from './prompt.ts';
import { invalidDraft, reviewDraft, unavailableDraft } from './review.ts';

export interface OpenAiDrafterOptions {
  /** Ends in `/v1`, as in the OpenAI SDKs. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Per request. */
  timeoutMs: number;
  /** Requests tried before giving up on a retryable failure; default 3. */
  attempts?: number;
  /** Wait before the second attempt, doubled for each next one; default 1000. */
  retryDelayMs?: number;
}

const codes = errorCodes('DRAFTING');
const serverName = 'drafting server';

const ChatCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }) })).min(1),
});

type Format = 'json_schema' | 'json_object';
type Answer = { content: unknown } | { refused: true } | { invalid: string };

/** Servers without structured outputs (older vLLM, llama.cpp builds) say so with a 400 or 422. */
function rejectsJsonSchema(response: ProviderResponse): boolean {
  return (
    (response.status === 400 || response.status === 422) && /response_format|json_schema|structured/i.test(serverMessage(response.body))
  );
}

function readAnswer(body: string): Answer {
  let completion: z.infer<typeof ChatCompletion>;
  try {
    completion = ChatCompletion.parse(JSON.parse(body));
  } catch {
    return { invalid: 'the body is not a chat completion' };
  }
  const message = completion.choices[0]!.message;
  if (!message.content) return message.refusal ? { refused: true } : { invalid: 'the model gave no content' };
  try {
    // Some servers wrap JSON in a Markdown fence even in JSON mode.
    return { content: JSON.parse(message.content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, '')) };
  } catch {
    return { invalid: 'the answer is not valid JSON' };
  }
}

/** A message for the log: the code and the HTTP status, never the server's words (they may echo the transcript). */
function describe(error: ProviderError, status: number | null): string {
  return `the drafting server could not be used (${error.code}${status === null ? '' : `, HTTP ${status}`})`;
}

export function createOpenAiDrafter(options: OpenAiDrafterOptions): Drafter {
  const secrets = [options.apiKey];
  const attempts = options.attempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 1000;

  function request(transcript: string, sections: readonly TemplateSection[], format: Format, signal: AbortSignal) {
    const jsonSchema = format === 'json_schema' ? draftJsonSchema(sections) : null;
    const system = systemPrompt(sections);
    return postChatCompletion({ ...options, system, user: transcript, jsonSchema }, signal, { codes, serverName });
  }

  /** One exchange: json_schema, then json_object when the server rejects it or the model refuses under it. */
  async function ask(
    transcript: string,
    sections: readonly TemplateSection[],
    signal: AbortSignal,
    onStatus: (status: number) => void,
  ): Promise<Answer> {
    let format: Format = 'json_schema';
    for (;;) {
      const response = await request(transcript, sections, format, signal);
      onStatus(response.status);
      if (format === 'json_schema' && rejectsJsonSchema(response)) {
        format = 'json_object';
        continue;
      }
      if (response.status < 200 || response.status >= 300) throw statusError(response, { codes, serverName, secrets });
      const answer = readAnswer(response.body);
      if ('refused' in answer && format === 'json_schema') {
        format = 'json_object';
        continue;
      }
      return answer;
    }
  }

  /** One exchange in JSON mode: `{"text": "..."}`; no retry (the caller falls back to the text it has). */
  async function rewrite(input: RewriteInput, signal: AbortSignal): Promise<RewriteOutcome> {
    try {
      const response = await postChatCompletion(
        { ...options, system: rewritePrompt(input.instructions), user: input.text, jsonSchema: null },
        signal,
        { codes, serverName },
      );
      if (response.status < 200 || response.status >= 300) throw statusError(response, { codes, serverName, secrets });
      const answer = readAnswer(response.body);
      if ('refused' in answer) return { ok: false, code: 'DRAFTING_INVALID', message: 'the model refused' };
      if ('invalid' in answer) return { ok: false, code: 'DRAFTING_INVALID', message: answer.invalid };
      const text = (answer.content as { text?: unknown } | null)?.text;
      if (typeof text !== 'string' || text.trim() === '') return { ok: false, code: 'DRAFTING_INVALID', message: 'no text in the answer' };
      return { ok: true, text: text.trim() };
    } catch (error) {
      if (signal.aborted || !(error instanceof ProviderError)) throw error;
      return { ok: false, code: error.code, message: describe(error, null) };
    }
  }

  return {
    name: 'openai',
    rewrite,
    async draft(input: DraftingInput, signal: AbortSignal): Promise<DraftOutcome> {
      const lines = numberedLines(input);
      if (lines.length === 0) return { ok: true, sections: [], flags: [] };
      // The grounding below reads `lines` (today's transcript) only; the previous visit is context.
      const today = renderLines(lines);
      const transcript = input.previous ? `${previousVisitBlock(input.previous)}\n${today}` : today;
      const sections = input.sections ?? BASE_SECTIONS;
      let status: number | null = null;
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await ask(transcript, sections, signal, (seen) => {
            status = seen;
          });
          if ('refused' in answer) return invalidDraft('the model refused');
          if ('invalid' in answer) return invalidDraft(answer.invalid);
          return reviewDraft(answer.content, lines, sections);
        } catch (error) {
          if (signal.aborted || !(error instanceof ProviderError)) throw error;
          if (!error.retryable || attempt >= attempts) return unavailableDraft(error.code, describe(error, status));
          status = null;
          await sleep(retryDelayMs * 2 ** (attempt - 1), undefined, { signal });
        }
      }
    },
  };
}
