// Picks the providers by name from plain options (the app's config module maps its settings onto
// these; providers never read the environment themselves).

import { z } from 'zod';
import { createOpenAiDrafter } from './drafting/openai.ts';
import type { Drafter } from './drafting/port.ts';
import { createOpenAiSectioner } from './sectioning/openai.ts';
import type { Sectioner } from './sectioning/port.ts';
import { createRulesSectioner } from './sectioning/rules.ts';
import { createOpenAiTranscriber } from './transcription/openai.ts';
import type { TranscriptionProvider } from './transcription/port.ts';
import { createSandboxTranscriber } from './transcription/sandbox.ts';

export type { DraftedSection, Drafter, DraftingInput, DraftOutcome, NoteStyle, ReviewFlag } from './drafting/port.ts';
export { ProviderError } from './provider-error.ts';
export type { Section, Sectioner, SectioningInput, SectionLabel } from './sectioning/port.ts';
export type { Transcript, TranscriptionInput, TranscriptionProvider } from './transcription/port.ts';

const OpenAiEndpoint = {
  /** Ends in `/v1`: the providers call `{baseUrl}/audio/transcriptions` and `{baseUrl}/chat/completions`. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().min(1).optional(),
  model: z.string().min(1),
  timeoutMs: z.number().int().positive(),
};

const TranscriptionProviderOptions = z.discriminatedUnion('name', [
  z.object({ name: z.literal('sandbox'), delayMs: z.number().int().nonnegative().optional() }),
  z.object({ name: z.literal('openai'), ...OpenAiEndpoint, language: z.string().min(2).optional() }),
]);
export type TranscriptionProviderOptions = z.input<typeof TranscriptionProviderOptions>;

const SectionerOptions = z.discriminatedUnion('name', [
  z.object({ name: z.literal('rules') }),
  z.object({
    name: z.literal('openai'),
    ...OpenAiEndpoint,
    /** Told why the model's answer was replaced by the rules sectioner's (for a log line). */
    onFallback: z.custom<(reason: string) => void>((value) => typeof value === 'function').optional(),
  }),
]);
export type SectionerOptions = z.input<typeof SectionerOptions>;

const DrafterOptions = z.object({
  name: z.literal('openai'),
  ...OpenAiEndpoint,
  attempts: z.number().int().min(1).max(10).optional(),
  retryDelayMs: z.number().int().nonnegative().optional(),
});
export type DrafterOptions = z.input<typeof DrafterOptions>;

function parse<T>(schema: z.ZodType<T>, options: unknown, what: string): T {
  const result = schema.safeParse(options);
  if (result.success) return result.data;
  // The issues name fields, never values, so an API key cannot end up in a log.
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'name'}: ${issue.message}`).join('; ');
  throw new Error(`Invalid ${what} options: ${problems}`);
}

export function createTranscriptionProvider(options: TranscriptionProviderOptions): TranscriptionProvider {
  const parsed = parse(TranscriptionProviderOptions, options, 'transcription provider');
  return parsed.name === 'sandbox' ? createSandboxTranscriber({ delayMs: parsed.delayMs }) : createOpenAiTranscriber(parsed);
}

export function createSectioner(options: SectionerOptions): Sectioner {
  const parsed = parse(SectionerOptions, options, 'sectioner');
  if (parsed.name === 'rules') return createRulesSectioner();
  return createOpenAiSectioner({ ...parsed, fallback: createRulesSectioner() });
}

export function createDrafter(options: DrafterOptions): Drafter {
  return createOpenAiDrafter(parse(DrafterOptions, options, 'drafter'));
}
