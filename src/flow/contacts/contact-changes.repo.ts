import type { Db } from '../../platform/db/client.ts';
import { sql } from '../../platform/db/drizzle.ts';
import type { contactChanges } from '../../platform/db/schema/index.ts';

export type ContactChangeRow = typeof contactChanges.$inferSelect;

/** A place in a workspace's change feed: after the change at (position, id). */
export interface FeedPlace {
  position: number;
  id: number;
}

interface RawChange {
  horizon: string;
  id: string | null;
  workspace_id: string;
  contact_id: string;
  position: string;
  source: ContactChangeRow['source'];
  changed_fields: string[];
  deleted: boolean;
  contact: unknown;
  changed_at: Date | string;
}

/**
 * Up to `limit` changes of the workspace after `after`, in (position, id) order, and the horizon
 * they were read below: the oldest transaction id still running (pg_snapshot_xmin of this
 * statement's snapshot). Every change below it has committed (or rolled back) and none can appear
 * there any more, so a reader that resumes after the last row, or at the horizon when it read all
 * there was, never misses one (docs/flow-sync.md). One statement: the horizon and the rows come
 * from one snapshot.
 */
export async function readContactChanges(
  workspaceId: string,
  after: FeedPlace,
  limit: number,
  db: Db,
): Promise<{ rows: ContactChangeRow[]; horizon: number }> {
  const result = (await db.execute(sql`
    select w.horizon, c.* from (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as horizon) w
    left join lateral (
      select * from contact_changes c
      where c.workspace_id = ${workspaceId} and (c.position, c.id) > (${after.position}::bigint, ${after.id}::bigint)
        and c.position < w.horizon
      order by c.position, c.id
      limit ${limit}
    ) c on true`)) as unknown as { rows: RawChange[] };
  const raw = result.rows;
  const rows = raw
    .filter((row) => row.id !== null)
    .map((row) => ({
      id: Number(row.id),
      workspaceId: row.workspace_id,
      contactId: row.contact_id,
      position: Number(row.position),
      source: row.source,
      changedFields: row.changed_fields,
      deleted: row.deleted,
      contact: row.contact,
      changedAt: new Date(row.changed_at),
    }));
  return { rows, horizon: Number(raw[0]!.horizon) };
}
