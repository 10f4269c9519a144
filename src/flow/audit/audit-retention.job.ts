import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { defineJob } from '../../platform/jobs.ts';
import { deleteAuditLogsBefore } from './audit.repo.ts';

/** Daily (03:15 UTC, in worker processes): contact audit entries older than the retention go. */
export function auditRetentionJob(deps: { db: Db; retentionDays: number }) {
  return defineJob({
    name: 'flow.audit-retention',
    payload: z.unknown(),
    cron: '15 3 * * *',
    queue: { retryLimit: 2 },
    async handle(_payload, { logger }) {
      const cutoff = new Date(Date.now() - deps.retentionDays * 86_400_000);
      const deleted = await deleteAuditLogsBefore(cutoff, deps.db);
      logger.info({ deleted, retentionDays: deps.retentionDays }, 'contact audit entries pruned');
    },
  });
}
