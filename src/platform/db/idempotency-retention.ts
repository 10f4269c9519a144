import type { RetentionTask } from '../retention.ts';
import { deleteInBatches } from '../retention.ts';
import type { Db } from './client.ts';
import { sql } from './drizzle.ts';

/**
 * Stored Idempotency-Key answers of both APIs (the Notes upload's holds the patient's name) go
 * IDEMPOTENCY_RETENTION_HOURS after they were first given: 48 by default, twice the 24 h a key is
 * replayed, so a key is never forgotten while it still counts. 0 removes every answer older than
 * the run (a key sent again afterwards runs the request again).
 */
export function idempotencyRetentionTask(db: Db, hours: number): RetentionTask {
  return {
    name: 'idempotency_keys_deleted',
    run: (now) => {
      const cutoff = new Date(now.getTime() - hours * 3_600_000);
      return deleteInBatches((limit) => deleteIdempotencyKeysBefore(cutoff, limit, db));
    },
  };
}

/** Up to `limit` answers stored before `cutoff`, by primary key, in one statement; returns how many. */
async function deleteIdempotencyKeysBefore(cutoff: Date, limit: number, db: Db): Promise<number> {
  const result = (await db.execute(sql`
    delete from idempotency_keys where (owner_id, scope, key) in (
      select owner_id, scope, key from idempotency_keys where created_at < ${cutoff.toISOString()}::timestamptz limit ${limit})
    returning 1 as deleted`)) as unknown as { rows: unknown[] };
  return result.rows.length;
}
