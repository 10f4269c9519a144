import path from 'node:path';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { ungroundedTokens } from './drafting/grounding/check.ts';
import { createOpenAiDrafter } from './drafting/openai.ts';
import type { Drafter, GroundingCheck } from './drafting/port.ts';
import type { MessagingProvider } from './messaging/port.ts';
import { createRecordProvider } from './messaging/record.ts';
import { createWebhookProvider } from './messaging/webhook.ts';
import { createOpenAiSectioner } from './sectioning/openai.ts';
import type { Sectioner } from './sectioning/port.ts';
import { createRulesSectioner } from './sectioning/rules.ts';
import { createLocalStorage } from './storage/local.ts';
import type { AudioStorage } from './storage/port.ts';
import { createS3Storage } from './storage/s3.ts';
import { createOpenAiTranscriber } from './transcription/openai.ts';
import type { TranscriptionProvider } from './transcription/port.ts';
import { createSandboxTranscriber } from './transcription/sandbox.ts';

// The one place an adapter is chosen: each port has one `…For(config)` function reading the
// settings that name its adapter, and `configuredAdapters` builds them all for the composition
// root (src/app.ts), which hands each tree the ports it uses. A new adapter is a file beside its
// port and one branch here; nothing in notes/ or flow/ imports an adapter.

const REMOTE_TIMEOUT_MS = 120_000;

/** Every port's adapter, as the configuration names them. */
export interface Adapters {
  readonly transcriber: TranscriptionProvider;
  readonly sectioner: Sectioner;
  /** Writes `clinical` notes; null when none is configured. */
  readonly drafter: Drafter | null;
  readonly storage: AudioStorage;
  readonly messaging: MessagingProvider;
  /** The drafting grounding check, which owner summaries pass whether or not a drafter is configured. */
  readonly grounding: GroundingCheck;
}

export function configuredAdapters(config: Config, logger?: Pick<Logger, 'warn'>): Adapters {
  return {
    transcriber: transcriberFor(config),
    sectioner: sectionerFor(config, logger),
    drafter: drafterFor(config),
    storage: storageFor(config),
    messaging: messagingFor(config),
    grounding: ungroundedTokens,
  };
}

/** TRANSCRIPTION_PROVIDER: `openai` (any OpenAI-compatible server) or the `sandbox`. */
export function transcriberFor(config: Config): TranscriptionProvider {
  return config.TRANSCRIPTION_PROVIDER === 'openai'
    ? createOpenAiTranscriber({
        baseUrl: config.TRANSCRIPTION_BASE_URL ?? '',
        apiKey: config.TRANSCRIPTION_API_KEY,
        model: config.TRANSCRIPTION_MODEL,
        language: config.TRANSCRIPTION_LANGUAGE,
        timeoutMs: REMOTE_TIMEOUT_MS,
        diarize: config.TRANSCRIPTION_DIARIZE,
        promptMaxChars: config.TRANSCRIPTION_PROMPT_MAX_CHARS,
        requestLimits: {
          maxBytes: config.TRANSCRIPTION_MAX_REQUEST_BYTES,
          maxSeconds: config.TRANSCRIPTION_MAX_REQUEST_SECONDS,
          overlapSeconds: config.TRANSCRIPTION_CHUNK_OVERLAP_SECONDS,
          concurrency: config.TRANSCRIPTION_CHUNK_CONCURRENCY,
        },
      })
    : createSandboxTranscriber({ delayMs: config.SANDBOX_TRANSCRIPTION_DELAY_MS });
}

/** SECTIONING_PROVIDER: the trained `rules` sectioner, or `openai` with it as the fallback. */
export function sectionerFor(config: Config, logger?: Pick<Logger, 'warn'>): Sectioner {
  const rules = createRulesSectioner();
  return config.SECTIONING_PROVIDER === 'openai'
    ? createOpenAiSectioner({
        baseUrl: config.SECTIONING_BASE_URL ?? '',
        apiKey: config.SECTIONING_API_KEY,
        model: config.SECTIONING_MODEL,
        timeoutMs: REMOTE_TIMEOUT_MS,
        fallback: rules,
        onFallback: (reason) => logger?.warn({ reason }, 'sectioning model answer unusable; used the rules sectioner'),
      })
    : rules;
}

/** DRAFTING_PROVIDER: `openai`, or none (`clinical` notes are then refused). */
export function drafterFor(config: Config): Drafter | null {
  return config.DRAFTING_PROVIDER === 'openai'
    ? createOpenAiDrafter({
        baseUrl: config.DRAFTING_BASE_URL ?? '',
        apiKey: config.DRAFTING_API_KEY,
        model: config.DRAFTING_MODEL,
        timeoutMs: REMOTE_TIMEOUT_MS,
      })
    : null;
}

/**
 * STORAGE_DRIVER: `s3` or files under DATA_DIR/audio. The server and the retention run (which may
 * run in the CLI, without the server) open the same one.
 */
export function storageFor(config: Config): AudioStorage {
  return config.STORAGE_DRIVER === 's3'
    ? createS3Storage({
        bucket: config.S3_BUCKET ?? '',
        region: config.S3_REGION,
        endpoint: config.S3_ENDPOINT,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
        prefix: config.S3_PREFIX,
      })
    : createLocalStorage(path.resolve(config.DATA_DIR, 'audio'));
}

/** MESSAGING_PROVIDER: `webhook` (signed POSTs to the operator's gateway) or `record` (kept only). */
export function messagingFor(config: Config): MessagingProvider {
  return config.MESSAGING_PROVIDER === 'webhook'
    ? createWebhookProvider({ url: config.MESSAGING_WEBHOOK_URL!, secret: config.MESSAGING_WEBHOOK_SECRET! })
    : createRecordProvider();
}
