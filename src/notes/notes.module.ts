import path from 'node:path';
import type { Config } from '../platform/config.ts';
import type { Database } from '../platform/db/client.ts';
import type { JobDefinition, JobQueue } from '../platform/jobs.ts';
import type { Logger } from '../platform/logger.ts';
import type { Drafter } from '../providers/drafting/port.ts';
import type { Sectioner } from '../providers/sectioning/port.ts';
import { createLocalStorage } from '../providers/storage/local.ts';
import type { AudioStorage } from '../providers/storage/port.ts';
import { createS3Storage } from '../providers/storage/s3.ts';
import type { TranscriptionProvider } from '../providers/transcription/port.ts';
import { createConfiguredProviders } from './processing/configured-providers.ts';
import { measuredProviders } from './processing/measured-providers.ts';
import { reconcileJob } from './processing/reconcile.job.ts';
import { transcribeJob } from './processing/transcribe.job.ts';
import { createWebhooksModule, type WebhooksModule } from './webhooks/webhooks.module.ts';

export interface NotesModule {
  readonly storage: AudioStorage;
  readonly jobs: readonly JobDefinition<any>[];
  readonly transcribe: ReturnType<typeof transcribeJob>;
  readonly webhooks: WebhooksModule;
  /** A drafter is configured, so uploads may ask for `clinical` notes. */
  readonly clinicalAvailable: boolean;
}

export interface NotesProviders {
  transcriber: TranscriptionProvider;
  sectioner: Sectioner;
  /** Writes `clinical` notes; absent or null when none is configured. */
  drafter?: Drafter | null;
}

/** What the Notes tree needs before the app is built: storage, providers and its job definitions. */
export function createNotesModule(
  config: Config,
  database: Database,
  jobQueue: () => JobQueue,
  logger: Logger,
  providers: NotesProviders = createConfiguredProviders(config, logger),
): NotesModule {
  const storage =
    config.STORAGE_DRIVER === 's3'
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
  const webhooks = createWebhooksModule(config, database, jobQueue, logger);
  const transcribe = transcribeJob({
    db: database.db,
    storage,
    ...measuredProviders(providers),
    timeoutSeconds: config.TRANSCRIPTION_TIMEOUT_SECONDS,
    heartbeatSeconds: config.TRANSCRIPTION_HEARTBEAT_SECONDS,
    retryDelaySeconds: config.TRANSCRIPTION_RETRY_DELAY_SECONDS,
    concurrency: config.TRANSCRIPTION_CONCURRENCY,
    events: webhooks.noteEvents,
    // The sandbox has no server to protect; its made-up transcript is not cut into chunks.
    transcriptionLimits:
      config.TRANSCRIPTION_PROVIDER === 'openai'
        ? {
            maxBytes: config.TRANSCRIPTION_MAX_REQUEST_BYTES,
            maxSeconds: config.TRANSCRIPTION_MAX_REQUEST_SECONDS,
            overlapSeconds: config.TRANSCRIPTION_CHUNK_OVERLAP_SECONDS,
            concurrency: config.TRANSCRIPTION_CHUNK_CONCURRENCY,
          }
        : null,
    tempDir: path.resolve(config.DATA_DIR, 'tmp', 'transcription'),
  });
  const reconcile = reconcileJob({
    db: database.db,
    jobs: jobQueue,
    transcribe,
    staleAfterSeconds: config.TRANSCRIPTION_TIMEOUT_SECONDS * 2 + 60,
    events: webhooks.noteEvents,
  });
  return {
    storage,
    jobs: [transcribe, reconcile, ...webhooks.jobs],
    transcribe,
    webhooks,
    clinicalAvailable: Boolean(providers.drafter),
  };
}
