import { INVALIDATION_CHANNEL } from './cache-invalidation.ts';
import type { Db } from './client.ts';
import { sql } from './drizzle.ts';

/**
 * Announces `topic` to every process. Inside a transaction it is delivered at commit and dropped
 * on rollback, so no process clears its cache before the change it stands for is visible.
 */
export async function announceInvalidation(topic: string, db: Db): Promise<void> {
  await db.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${topic})`);
}
