import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { createOpenAiDrafter } from '../../providers/drafting/openai.ts';
import type { Drafter } from '../../providers/drafting/port.ts';
import { createOpenAiSectioner } from '../../providers/sectioning/openai.ts';
import type { Sectioner } from '../../providers/sectioning/port.ts';
import { createRulesSectioner } from '../../providers/sectioning/rules.ts';
import { createOpenAiTranscriber } from '../../providers/transcription/openai.ts';
import type { TranscriptionProvider } from '../../providers/transcription/port.ts';
import { createSandboxTranscriber } from '../../providers/transcription/sandbox.ts';

const REMOTE_TIMEOUT_MS = 120_000;

/** The transcription provider and sectioner the configuration names. */
export function createConfiguredProviders(
  config: Config,
  logger?: Pick<Logger, 'warn'>,
): { transcriber: TranscriptionProvider; sectioner: Sectioner; drafter: Drafter | null } {
  const rules = createRulesSectioner();
  const transcriber =
    config.TRANSCRIPTION_PROVIDER === 'openai'
      ? createOpenAiTranscriber({
          baseUrl: config.TRANSCRIPTION_BASE_URL ?? '',
          apiKey: config.TRANSCRIPTION_API_KEY,
          model: config.TRANSCRIPTION_MODEL,
          language: config.TRANSCRIPTION_LANGUAGE,
          timeoutMs: REMOTE_TIMEOUT_MS,
          diarize: config.TRANSCRIPTION_DIARIZE,
          requestLimits: {
            maxBytes: config.TRANSCRIPTION_MAX_REQUEST_BYTES,
            maxSeconds: config.TRANSCRIPTION_MAX_REQUEST_SECONDS,
            overlapSeconds: config.TRANSCRIPTION_CHUNK_OVERLAP_SECONDS,
            concurrency: config.TRANSCRIPTION_CHUNK_CONCURRENCY,
          },
        })
      : createSandboxTranscriber({ delayMs: config.SANDBOX_TRANSCRIPTION_DELAY_MS });
  const sectioner =
    config.SECTIONING_PROVIDER === 'openai'
      ? createOpenAiSectioner({
          baseUrl: config.SECTIONING_BASE_URL ?? '',
          apiKey: config.SECTIONING_API_KEY,
          model: config.SECTIONING_MODEL,
          timeoutMs: REMOTE_TIMEOUT_MS,
          fallback: rules,
          onFallback: (reason) => logger?.warn({ reason }, 'sectioning model answer unusable; used the rules sectioner'),
        })
      : rules;
  const drafter =
    config.DRAFTING_PROVIDER === 'openai'
      ? createOpenAiDrafter({
          baseUrl: config.DRAFTING_BASE_URL ?? '',
          apiKey: config.DRAFTING_API_KEY,
          model: config.DRAFTING_MODEL,
          timeoutMs: REMOTE_TIMEOUT_MS,
        })
      : null;
  return { transcriber, sectioner, drafter };
}
