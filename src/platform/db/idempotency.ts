import type { Db } from './client.ts';
import { and, eq, gt, sql } from './drizzle.ts';
import { idempotencyKeys } from './schema/index.ts';

export const IDEMPOTENCY_WINDOW_HOURS = 24;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  fingerprint: string;
  statusCode: number;
  response: unknown;
}

/** The first response recorded for this key, scope and clinic within the window, if any. */
export async function findIdempotentResponse(clinicId: string, scope: string, key: string, db: Db): Promise<StoredResponse | undefined> {
  const [row] = await db
    .select({ fingerprint: idempotencyKeys.fingerprint, statusCode: idempotencyKeys.statusCode, response: idempotencyKeys.response })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.clinicId, clinicId),
        eq(idempotencyKeys.scope, scope),
        eq(idempotencyKeys.key, key),
        gt(idempotencyKeys.createdAt, sql`now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`),
      ),
    );
  return row;
}

/**
 * Records the response inside the caller's transaction. Returns false when another request with the
 * same key got there first (the caller rolls back and replays theirs). An expired record is replaced.
 */
export async function recordIdempotentResponse(
  entry: { clinicId: string; scope: string; key: string } & StoredResponse,
  tx: Db,
): Promise<boolean> {
  const rows = await tx
    .insert(idempotencyKeys)
    .values(entry)
    .onConflictDoUpdate({
      target: [idempotencyKeys.clinicId, idempotencyKeys.scope, idempotencyKeys.key],
      set: { fingerprint: entry.fingerprint, statusCode: entry.statusCode, response: entry.response, createdAt: sql`now()` },
      setWhere: sql`${idempotencyKeys.createdAt} <= now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`,
    })
    .returning({ key: idempotencyKeys.key });
  return rows.length > 0;
}
