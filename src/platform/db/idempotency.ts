import { AppError } from '../errors.ts';
import type { Db } from './client.ts';
import { and, eq, gt, sql } from './drizzle.ts';
import { idempotencyKeys } from './schema/index.ts';

// One Idempotency-Key rule for every operation that honours the header (note upload, retry, the
// contact batch, and whatever comes next): the first answer to a key is stored with the writes that
// produced it, in their transaction, and replayed for 24 h to the same owner.

export const IDEMPOTENCY_WINDOW_HOURS = 24;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentRequest {
  /** Whose key it is: a Notes clinic id or a CRM workspace id (keys never cross owners). */
  owner: string;
  /** The operation, e.g. `POST /notes`; one key may serve different operations independently. */
  scope: string;
  /** The request's Idempotency-Key; without one the work simply runs. */
  key: string | undefined;
  /** What identifies the request (a hex SHA-256 of its content): the same key with another → 422. */
  fingerprint: string;
  /** Ends the 422's message: "…already used for <reusedFor>", e.g. "a different upload". */
  reusedFor: string;
}

/** What an idempotent operation answers: stored as is and replayed word for word. */
export interface IdempotentAnswer<B> {
  statusCode: number;
  body: B;
}

export interface Replayable<B> extends IdempotentAnswer<B> {
  /** True when this is the stored answer to an earlier request with the same key. */
  replayed: boolean;
}

export interface OutsideTheDatabase {
  /**
   * Work that must not hold a transaction open (validation, storing a file), run before it and
   * only when no answer is stored yet: a replay does none of it.
   */
  before?: () => Promise<void>;
  /** Undoes what `before` did outside the database when the transaction did not commit this answer. */
  undo?: () => Promise<void>;
}

/**
 * The one implementation of Idempotency-Key, bound to a database:
 * `idempotent(request, (tx) => writes and answer, { before, undo })`.
 *
 * 1. An answer stored for (owner, scope, key) within the window is replayed (a different
 *    fingerprint → 422 `IDEMPOTENCY_KEY_REUSED`) and nothing runs.
 * 2. Otherwise `before` runs, then the writes in one transaction that also records their answer;
 *    errors are never recorded (a request that failed may be sent again with the same key).
 * 3. The race rule, the same for every caller: when two requests with one key run at once, the
 *    second's record waits for the first's commit and then finds the key taken; it rolls back
 *    everything it wrote and answers with the winner's stored answer. A request whose writes fail
 *    because the winner changed what they depend on (a retried note is no longer failed) also
 *    answers with the winner's answer when one is stored by then.
 */
export function idempotency(db: Db) {
  return async function idempotent<B>(
    request: IdempotentRequest,
    writes: (tx: Db) => Promise<IdempotentAnswer<B>>,
    outside: OutsideTheDatabase = {},
  ): Promise<Replayable<B>> {
    const stored = request.key === undefined ? undefined : await findStoredAnswer(request, db);
    if (stored) return replay<B>(request, stored);
    let committed = false;
    try {
      await outside.before?.();
      const answer = await db.transaction(async (tx) => {
        const fresh = await writes(tx);
        if (request.key !== undefined && !(await recordAnswer(request, fresh, tx))) throw new LostIdempotencyRace();
        return fresh;
      });
      committed = true;
      return { ...answer, replayed: false };
    } catch (error) {
      // A failed lookup (the database is gone) must not hide what went wrong first.
      const winner = request.key === undefined ? undefined : await findStoredAnswer(request, db).catch(() => undefined);
      if (winner) return replay<B>(request, winner);
      throw error;
    } finally {
      if (!committed) await outside.undo?.();
    }
  };
}

export type Idempotent = ReturnType<typeof idempotency>;

/** Thrown inside the transaction to roll it back when another request recorded the key first. */
class LostIdempotencyRace extends Error {}

interface StoredAnswer {
  fingerprint: string;
  statusCode: number;
  response: unknown;
}

function replay<B>(request: IdempotentRequest, stored: StoredAnswer): Replayable<B> {
  if (stored.fingerprint !== request.fingerprint) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', `This Idempotency-Key was already used for ${request.reusedFor}`, {
      field: 'Idempotency-Key',
      reason: 'reused with a different request',
    });
  }
  return { statusCode: stored.statusCode, body: stored.response as B, replayed: true };
}

/** The first answer recorded for this owner, scope and key within the window, if any. */
async function findStoredAnswer(request: IdempotentRequest, db: Db): Promise<StoredAnswer | undefined> {
  const [row] = await db
    .select({ fingerprint: idempotencyKeys.fingerprint, statusCode: idempotencyKeys.statusCode, response: idempotencyKeys.response })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.ownerId, request.owner),
        eq(idempotencyKeys.scope, request.scope),
        eq(idempotencyKeys.key, request.key!),
        gt(idempotencyKeys.createdAt, sql`now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`),
      ),
    );
  return row;
}

/**
 * Records the answer inside the writes' transaction; false when another request with the same key
 * got there first (an expired record is replaced). The primary key makes a concurrent insert wait
 * for the other transaction, so "false" means the other answer is committed.
 */
async function recordAnswer<B>(request: IdempotentRequest, answer: IdempotentAnswer<B>, tx: Db): Promise<boolean> {
  const rows = await tx
    .insert(idempotencyKeys)
    .values({
      ownerId: request.owner,
      scope: request.scope,
      key: request.key!,
      fingerprint: request.fingerprint,
      statusCode: answer.statusCode,
      response: answer.body,
    })
    .onConflictDoUpdate({
      target: [idempotencyKeys.ownerId, idempotencyKeys.scope, idempotencyKeys.key],
      set: { fingerprint: request.fingerprint, statusCode: answer.statusCode, response: answer.body, createdAt: sql`now()` },
      setWhere: sql`${idempotencyKeys.createdAt} <= now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`,
    })
    .returning({ key: idempotencyKeys.key });
  return rows.length > 0;
}
