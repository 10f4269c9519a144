import type { Db } from '../../platform/db/client.ts';
import { deleteInBatches, type RetentionTask } from '../../platform/retention.ts';
import { deleteAuditLogsBefore } from './audit.repo.ts';

/** Contact audit entries older than AUDIT_RETENTION_DAYS (90) go, in the daily retention run. */
export function auditRetentionTask(db: Db, retentionDays: number): RetentionTask {
  return {
    name: 'contact_audit_logs_deleted',
    run: (now) => {
      const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
      return deleteInBatches((limit) => deleteAuditLogsBefore(cutoff, limit, db));
    },
  };
}
