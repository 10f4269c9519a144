import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/client.ts';
import type { RetentionTask } from '../platform/retention.ts';
import type { AudioStorage } from '../providers/storage/port.ts';
import { erasureLogRetentionTask } from './erasure/erasure-log-retention.ts';
import { audioRetentionTask } from './recording/audio-retention.ts';
import { webhookRetentionTask } from './webhooks/webhook-retention.ts';

/**
 * The Notes tree's retention tasks (docs/privacy.md, "How long"), run by src/retention.ts. The
 * audio task is given the configured storage: the CLI runs it without the Notes module.
 */
export function notesRetentionTasks(config: Config, db: Db, storage: AudioStorage): RetentionTask[] {
  return [webhookRetentionTask(db, config.WEBHOOK_RETENTION_DAYS), audioRetentionTask(db, storage), erasureLogRetentionTask(db)];
}
