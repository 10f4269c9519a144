/** Anything that runs SQL the way pg-boss does (`boss.getDb()`), on Postgres and on PGlite alike. */
export interface SqlRunner {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * Seconds the oldest runnable job of each queue has waited (since it became due), for queues that
 * have one. pg-boss's queue statistics hold the counts but not this age.
 */
export async function oldestWaitingSeconds(db: SqlRunner): Promise<Map<string, number>> {
  const { rows } = await db.executeSql(
    `SELECT name, extract(epoch from now() - min(start_after))::float8 AS seconds
       FROM pgboss.job WHERE state < 'active' AND start_after <= now() GROUP BY name`,
  );
  return new Map((rows as { name: string; seconds: number }[]).map((row) => [row.name, Math.max(0, Number(row.seconds))]));
}
