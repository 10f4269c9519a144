import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { defineJob } from '../../platform/jobs.ts';
import { deleteSettledEventsBefore } from './deliveries.repo.ts';

const BATCH = 5_000;

/**
 * Daily (03:45 UTC, in worker processes): webhook events older than the retention, and their
 * delivery log, go once nothing about them is still to be sent. Without it the outbox grows by one
 * row per completed or failed note forever.
 */
export function webhookRetentionJob(deps: { db: Db; retentionDays: number }) {
  return defineJob({
    name: 'notes.webhook-retention',
    payload: z.unknown(),
    cron: '45 3 * * *',
    queue: { retryLimit: 2 },
    async handle(_payload, { logger }) {
      const cutoff = new Date(Date.now() - deps.retentionDays * 86_400_000);
      let deleted = 0;
      for (;;) {
        const batch = await deleteSettledEventsBefore(cutoff, BATCH, deps.db);
        deleted += batch;
        if (batch < BATCH) break;
      }
      logger.info({ deleted, retentionDays: deps.retentionDays }, 'webhook events pruned');
    },
  });
}
