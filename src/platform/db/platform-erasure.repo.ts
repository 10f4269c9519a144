import type { Db } from './client.ts';
import { sql } from './drizzle.ts';

// What an erasure removes from the platform's own tables, in the erasing transaction: the stored
// Idempotency-Key answers that name what is erased (a note upload's answer holds the patient's
// name), and the queue's jobs that carry its ids (a transcription still waiting, a webhook delivery
// not yet sent, and the finished jobs pg-boss keeps for a week).

/**
 * Deletes the owner's stored answers whose body contains any of `values` (ids, as text); returns
 * how many. Scans only the owner's answers (the primary key starts with the owner), which live
 * IDEMPOTENCY_RETENTION_HOURS.
 */
export async function deleteAnswersMentioning(ownerId: string, values: readonly string[], tx: Db): Promise<number> {
  if (values.length === 0) return 0;
  const result = (await tx.execute(sql`
    delete from idempotency_keys where owner_id = ${ownerId}
      and exists (select 1 from unnest(array[${sql.join(
        values.map((value) => sql`${value}`),
        sql`, `,
      )}]::text[]) v(value) where strpos(response::text, v.value) > 0)
    returning 1 as deleted`)) as unknown as { rows: unknown[] };
  return result.rows.length;
}

/**
 * Deletes every pg-boss job, in any queue and state, whose payload field `field` (e.g. `noteId`)
 * is one of `values`; returns how many. Every queue: a job added later that carries a note's id is
 * covered without being listed. A worker that already holds one of them finds its job gone when it
 * settles it, which pg-boss ignores. A scan of the job table (jobs live a week): erasure is rare.
 */
export async function deleteJobsCarrying(field: string, values: readonly string[], tx: Db): Promise<number> {
  if (values.length === 0) return 0;
  const result = (await tx.execute(sql`
    delete from pgboss.job where data ->> ${field}::text in (${sql.join(
      values.map((value) => sql`${value}`),
      sql`, `,
    )})
    returning 1 as deleted`)) as unknown as { rows: unknown[] };
  return result.rows.length;
}
