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
  floor_position: string | null;
  floor_id: string | null;
  id: string | null;
  workspace_id: string;
  contact_id: string;
  position: string;
  source: ContactChangeRow['source'];
  change: ContactChangeRow['change'];
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
 * there was, never misses one (docs/flow-sync.md). Also the workspace's floor: the last change the
 * retention job deleted (contact_change_floors), null while none was. One statement: the horizon,
 * the floor and the rows come from one snapshot.
 */
export async function readContactChanges(
  workspaceId: string,
  after: FeedPlace,
  limit: number,
  db: Db,
): Promise<{ rows: ContactChangeRow[]; horizon: number; floor: FeedPlace | null }> {
  const result = (await db.execute(sql`
    select w.horizon, f.position as floor_position, f.change_id as floor_id, c.*
    from (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as horizon) w
    left join contact_change_floors f on f.workspace_id = ${workspaceId}
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
      change: row.change,
      changedFields: row.changed_fields,
      deleted: row.deleted,
      contact: row.contact,
      changedAt: new Date(row.changed_at),
    }));
  const first = raw[0]!;
  const floor = first.floor_position === null ? null : { position: Number(first.floor_position), id: Number(first.floor_id) };
  return { rows, horizon: Number(first.horizon), floor };
}

/**
 * Every workspace with changes in the feed, by a skip scan of the feed index (one index probe per
 * workspace, whatever the number of changes).
 */
export async function workspacesWithChanges(db: Db): Promise<string[]> {
  const result = (await db.execute(sql`
    with recursive w as (
      (select workspace_id from contact_changes order by workspace_id limit 1)
      union all
      select (select c.workspace_id from contact_changes c where c.workspace_id > w.workspace_id order by c.workspace_id limit 1)
      from w where w.workspace_id is not null
    )
    select workspace_id from w where workspace_id is not null`)) as unknown as { rows: { workspace_id: string }[] };
  return result.rows.map((row) => row.workspace_id);
}

/**
 * Where pruning a workspace's feed stops: its first change (in feed order) that is to be kept —
 * written at or after `cutoff`, or at or above the horizon (a transaction older than it may still
 * be running and commit there). With none, the horizon itself: everything committed below it goes.
 * Walks the feed index over exactly what is to go.
 */
export async function pruneBoundary(workspaceId: string, cutoff: Date, db: Db): Promise<FeedPlace> {
  const result = (await db.execute(sql`
    select w.horizon, k.position, k.id
    from (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as horizon) w
    left join lateral (
      select c.position, c.id from contact_changes c
      where c.workspace_id = ${workspaceId} and (c.changed_at >= ${cutoff.toISOString()}::timestamptz or c.position >= w.horizon)
      order by c.position, c.id
      limit 1
    ) k on true`)) as unknown as { rows: { horizon: string; position: string | null; id: string | null }[] };
  const row = result.rows[0]!;
  return row.position === null ? { position: Number(row.horizon), id: 0 } : { position: Number(row.position), id: Number(row.id) };
}

/**
 * Deletes up to `limit` of the workspace's oldest changes before `boundary`, by id, and raises its
 * floor to the last one deleted, in one statement (one transaction); returns how many it deleted.
 */
export async function deleteChangesBefore(workspaceId: string, boundary: FeedPlace, limit: number, db: Db): Promise<number> {
  const result = (await db.execute(sql`
    with doomed as (
      select id from contact_changes
      where workspace_id = ${workspaceId} and (position, id) < (${boundary.position}::bigint, ${boundary.id}::bigint)
      order by position, id
      limit ${limit}
    ), gone as (
      delete from contact_changes c using doomed d where c.id = d.id returning c.position, c.id
    ), last as (
      select position, id from gone order by position desc, id desc limit 1
    ), floor as (
      insert into contact_change_floors (workspace_id, position, change_id)
      select ${workspaceId}, position, id from last
      on conflict (workspace_id) do update set position = excluded.position, change_id = excluded.change_id, updated_at = now()
        where (excluded.position, excluded.change_id) > (contact_change_floors.position, contact_change_floors.change_id)
    )
    select count(*)::int as deleted from gone`)) as unknown as { rows: { deleted: number }[] };
  return Number(result.rows[0]!.deleted);
}
