import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/client.ts';
import type { RetentionTask } from '../platform/retention.ts';
import { webhookRetentionTask } from './webhooks/webhook-retention.ts';

/** The Notes tree's retention tasks (docs/privacy.md, "How long"), run by src/retention.ts. */
export function notesRetentionTasks(config: Config, db: Db): RetentionTask[] {
  return [webhookRetentionTask(db, config.WEBHOOK_RETENTION_DAYS)];
}
