import type { Db } from '../../platform/db/client.ts';
import { deleteInBatches, type RetentionTask } from '../../platform/retention.ts';
import { deleteSettledEventsBefore } from './deliveries.repo.ts';

/**
 * Webhook events older than WEBHOOK_RETENTION_DAYS, and their delivery log, go in the daily
 * retention run once nothing about them is still to be sent. Without it the outbox grows by one
 * row per completed or failed note forever.
 */
export function webhookRetentionTask(db: Db, retentionDays: number): RetentionTask {
  return {
    name: 'webhook_events_deleted',
    run: (now) => {
      const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
      return deleteInBatches((limit) => deleteSettledEventsBefore(cutoff, limit, db));
    },
  };
}
