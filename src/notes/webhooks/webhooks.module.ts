import type { Config } from '../../platform/config.ts';
import type { Database } from '../../platform/db/client.ts';
import type { JobDefinition, JobQueue } from '../../platform/jobs.ts';
import { deliverJob } from './deliver.job.ts';
import { type NoteEvents, noteEvents } from './note-events.ts';
import { Outbox } from './outbox.ts';
import { webhookRetentionJob } from './retention.job.ts';
import { loadSecretKey, SecretBox } from './secrets.ts';
import { sweepJob } from './sweep.job.ts';

export interface WebhooksModule {
  readonly outbox: Outbox;
  readonly noteEvents: NoteEvents;
  /** The encryption of signing secrets; its key is read (or generated) on first use. */
  readonly secrets: () => SecretBox;
  readonly allowPrivateTargets: boolean;
  readonly jobs: readonly JobDefinition<any>[];
}

export function createWebhooksModule(config: Config, database: Database, jobQueue: () => JobQueue): WebhooksModule {
  let box: SecretBox | undefined;
  const secrets = () => {
    box ??= new SecretBox(loadSecretKey(config.WEBHOOK_SECRET_KEY, config.DATA_DIR));
    return box;
  };
  const deliver = deliverJob({
    db: database.db,
    jobs: jobQueue,
    secrets,
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE_SECONDS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    disableAfterSeconds: config.WEBHOOK_DISABLE_AFTER_SECONDS,
  });
  const outbox = new Outbox(jobQueue, deliver);
  return {
    outbox,
    noteEvents: noteEvents(outbox, config.PUBLIC_BASE_URL),
    secrets,
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    jobs: [
      deliver,
      sweepJob({ db: database.db, jobs: jobQueue, deliver }),
      webhookRetentionJob({ db: database.db, retentionDays: config.WEBHOOK_RETENTION_DAYS }),
    ],
  };
}
