import type { Db } from '../../platform/db/client.ts';
import { deleteInBatches, type RetentionTask } from '../../platform/retention.ts';
import { deleteErasuresBefore } from './erasure.repo.ts';

/** The erasure log is the clinic's proof that requests were answered: kept 5 years, then pruned. */
export const ERASURE_LOG_RETENTION_DAYS = 5 * 365 + 1;

export function erasureLogRetentionTask(db: Db): RetentionTask {
  return {
    name: 'erasure_log_deleted',
    run: (now) => {
      const cutoff = new Date(now.getTime() - ERASURE_LOG_RETENTION_DAYS * 86_400_000);
      return deleteInBatches((limit) => deleteErasuresBefore(cutoff, limit, db));
    },
  };
}
