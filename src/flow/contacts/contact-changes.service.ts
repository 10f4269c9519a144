import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { type ContactChangeRow, type FeedPlace, readContactChanges } from './contact-changes.repo.ts';

/** What the change feed is read with. */
export interface ContactChangesDeps {
  db: Db;
}

const CURSOR = /^v1\.(\d{1,18})\.(\d{1,18})$/;

/** A cursor is opaque to the ERP: base64url of `v1.<position>.<id>`. */
export function encodeCursor(place: FeedPlace): string {
  return Buffer.from(`v1.${place.position}.${place.id}`).toString('base64url');
}

function decodeCursor(cursor: string): FeedPlace {
  const match = /^[A-Za-z0-9_-]{1,80}$/.test(cursor) ? CURSOR.exec(Buffer.from(cursor, 'base64url').toString('latin1')) : null;
  if (!match) {
    throw new AppError('INVALID_PARAMETER', 'Invalid cursor: pass a next_cursor this feed returned, or none to start', {
      field: 'cursor',
      reason: 'not a cursor of this feed',
    });
  }
  return { position: Number(match[1]), id: Number(match[2]) };
}

function isBefore(place: FeedPlace, other: FeedPlace): boolean {
  return place.position < other.position || (place.position === other.position && place.id < other.id);
}

/**
 * GET /external/.../contacts/changes: the workspace's contact changes after the cursor (none: from
 * the first), oldest first, the cursor to resume from, and whether more changes are ready now.
 * One row beyond the page is read to tell: without it a full page could not say whether it was the
 * last. A page with nothing more has read everything below the horizon, so its cursor moves up to
 * the horizon (an empty page too): a follower never rescans what it has seen, and never skips a
 * change that commits later (its position is at or above the horizon).
 * A cursor below what the retention job pruned → 410 CURSOR_EXPIRED, with the cursor to resync from.
 */
async function listContactChanges(
  { db }: ContactChangesDeps,
  caller: ApiKeyCaller,
  query: { cursor?: string; limit: number },
): Promise<{ changes: ContactChangeRow[]; nextCursor: string; hasMore: boolean }> {
  const after = query.cursor === undefined ? { position: 0, id: 0 } : decodeCursor(query.cursor);
  const { rows, horizon, floor } = await readContactChanges(caller.workspaceId, after, query.limit + 1, db);
  // The floor is a change that was deleted: a cursor below it never read that change.
  if (query.cursor !== undefined && floor && isBefore(after, floor)) {
    throw new AppError(
      'CURSOR_EXPIRED',
      'This cursor is older than the changes still kept (CONTACT_CHANGES_RETENTION_DAYS): some changes after it were ' +
        'deleted. Resync: read every contact again, then follow the feed from details.oldest_cursor, which returns every ' +
        'change still kept.',
      { oldest_cursor: encodeCursor(floor) },
    );
  }
  const hasMore = rows.length > query.limit;
  const changes = hasMore ? rows.slice(0, query.limit) : rows;
  const last = changes.at(-1);
  let next = last ? { position: last.position, id: last.id } : after;
  if (!hasMore && horizon > next.position) next = { position: horizon, id: 0 };
  return { changes, nextCursor: encodeCursor(next), hasMore };
}

/** The change feed an ERP follows, bound to the database once. */
export function contactChangesService(deps: ContactChangesDeps) {
  return bindService(deps, { listContactChanges });
}

export type ContactChangesService = ReturnType<typeof contactChangesService>;
