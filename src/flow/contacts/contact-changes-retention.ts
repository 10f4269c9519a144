import type { Db } from '../../platform/db/client.ts';
import { deleteInBatches, type RetentionTask } from '../../platform/retention.ts';
import { deleteChangesBefore, pruneBoundary, workspacesWithChanges } from './contact-changes.repo.ts';

/**
 * The change feed keeps CONTACT_CHANGES_RETENTION_DAYS (30) days of versions (0: none older than
 * the run). Per workspace, every change before its first one still to keep goes, oldest first, in
 * batches that each raise the workspace's floor (contact_change_floors) in their transaction: a
 * cursor below the floor then answers 410 CURSOR_EXPIRED. Only changes below the feed's horizon
 * (the oldest running transaction) go, so none can commit below the floor later (docs/flow-sync.md).
 */
export function contactChangesRetentionTask(db: Db, retentionDays: number): RetentionTask {
  return {
    name: 'contact_changes_deleted',
    run: async (now) => {
      const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
      let total = 0;
      for (const workspaceId of await workspacesWithChanges(db)) {
        const boundary = await pruneBoundary(workspaceId, cutoff, db);
        total += await deleteInBatches((limit) => deleteChangesBefore(workspaceId, boundary, limit, db));
      }
      return total;
    },
  };
}
