import type { Config } from '../../platform/config.ts';
import type { Database } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { Logger } from '../../platform/logger.ts';
import { deliverJob } from './deliver.job.ts';
import { type NoteEvents, noteEvents } from './note-events.ts';
import { type DeliverJob, Outbox } from './outbox.ts';
import { KEY_MISSING_MESSAGE, loadSecretKeyring, secretKeyMissing } from './secret-key.ts';
import { SecretBox } from './secrets.ts';
import { sweepJob } from './sweep.job.ts';

export interface WebhooksModule {
  readonly outbox: Outbox;
  readonly noteEvents: NoteEvents;
  /**
   * The encryption of signing secrets; its key is read (or, on the embedded database, generated)
   * on first use. Throws 503 WEBHOOK_KEY_MISSING on Postgres without WEBHOOK_SECRET_KEY.
   */
  readonly secrets: () => SecretBox;
  readonly allowPrivateTargets: boolean;
  /** Its job definitions, registered by notes.module.ts (the one place every Notes job is registered). */
  readonly jobs: { readonly deliver: DeliverJob; readonly sweep: ReturnType<typeof sweepJob> };
}

/**
 * The webhook outbox and secrets, and the definitions of its jobs (delivery, sweep), which
 * notes.module.ts registers on `jobs` before the queue starts (its retention is a task of the
 * retention run: notes.retention.ts).
 */
export function createWebhooksModule(config: Config, database: Database, jobs: JobQueue, logger: Logger): WebhooksModule {
  // Everything else keeps working without the key (uploads, notes, the CRM): only what needs it
  // is refused, so a server started without it is still of use while the operator adds it.
  const missing = secretKeyMissing(config);
  if (missing) logger.error({ variable: 'WEBHOOK_SECRET_KEY' }, KEY_MISSING_MESSAGE);
  let box: SecretBox | undefined;
  const secrets = () => {
    if (missing) throw keyMissing();
    if (!box) {
      const keyring = loadSecretKeyring(config);
      if (!keyring) throw keyMissing();
      box = new SecretBox(keyring.current, keyring.previous);
    }
    return box;
  };
  const deliver = deliverJob({
    db: database.db,
    jobs,
    secrets,
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE_SECONDS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    disableAfterSeconds: config.WEBHOOK_DISABLE_AFTER_SECONDS,
  });
  const sweep = sweepJob({ db: database.db, jobs, deliver });
  const outbox = new Outbox(jobs, deliver);
  return {
    outbox,
    noteEvents: noteEvents(outbox, config.PUBLIC_BASE_URL),
    secrets,
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    jobs: { deliver, sweep },
  };
}

/** What a client is told (the operator's remedy is in the start-up log and docs/webhooks.md). */
function keyMissing(): AppError {
  return new AppError(
    'WEBHOOK_KEY_MISSING',
    'Webhooks are unavailable on this server until its operator sets WEBHOOK_SECRET_KEY (the key that encrypts signing secrets)',
  );
}
