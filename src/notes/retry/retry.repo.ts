import type { Db } from '../../platform/db/client.ts';
import { eq, sql } from '../../platform/db/drizzle.ts';
import { noteRetries } from '../../platform/db/schema/index.ts';

/** How many retries of this note were accepted so far. */
export async function retriesOf(noteId: string, db: Db): Promise<number> {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(noteRetries).where(eq(noteRetries.noteId, noteId));
  return Number(row?.count ?? 0);
}

/** Records an accepted retry: it counts toward the note's cap and the clinic's quota this month. */
export async function recordRetry(retry: { noteId: string; clinicId: string; audioDurationSeconds: number }, db: Db): Promise<void> {
  await db.insert(noteRetries).values(retry);
}
