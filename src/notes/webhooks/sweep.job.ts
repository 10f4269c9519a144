import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { defineJob, type JobQueue } from '../../platform/jobs.ts';
import { overdueDeliveries } from './deliveries.repo.ts';
import { type DeliverJob, deliveryGroup } from './outbox.ts';

/**
 * Safety net behind the per-delivery jobs: a delivery overdue by a minute (its job was lost, e.g.
 * dead-lettered after repeated crashes) or held by a worker that died gets a fresh job. Duplicates
 * are harmless: an attempt starts with an atomic claim. Runs every minute in worker processes.
 */
export function sweepJob(deps: { db: Db; jobs: JobQueue; deliver: DeliverJob }) {
  return defineJob({
    name: 'notes.webhook-sweep',
    payload: z.unknown(),
    cron: '* * * * *',
    queue: { retryLimit: 0 },
    async handle(_payload, { logger }) {
      const overdue = await overdueDeliveries(60, deps.db);
      for (const delivery of overdue) await deps.jobs.send(deps.deliver, { deliveryId: delivery.id }, deliveryGroup(delivery.clinicId));
      if (overdue.length > 0) logger.warn({ count: overdue.length }, 'overdue webhook deliveries re-queued');
    },
  });
}
