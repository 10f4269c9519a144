import type { Db } from '../../platform/db/client.ts';
import { and, count, desc, eq, getTableColumns, inArray, lt, notExists, or, sql } from '../../platform/db/drizzle.ts';
import { type WebhookPayload, webhookDeliveries, webhookEndpoints, webhookEvents } from '../../platform/db/schema/index.ts';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type EventRow = typeof webhookEvents.$inferSelect;
export type DeliveryWithEvent = DeliveryRow & { eventType: string };

export async function insertEvent(
  event: { id: string; clinicId: string; type: string; payload: WebhookPayload },
  db: Db,
): Promise<EventRow> {
  const [row] = await db.insert(webhookEvents).values(event).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function insertDeliveries(eventId: string, endpointIds: string[], db: Db): Promise<DeliveryRow[]> {
  if (endpointIds.length === 0) return [];
  return db
    .insert(webhookDeliveries)
    .values(endpointIds.map((endpointId) => ({ eventId, endpointId })))
    .returning();
}

/**
 * Takes a delivery for one attempt, atomically: of two workers holding a job for it, one gets the
 * row and the other nothing. A delivery whose worker died mid-attempt (claim expired) can be taken again.
 */
export async function claimDelivery(id: string, claimSeconds: number, db: Db): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({
      status: 'delivering',
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      lastAttemptAt: sql`now()`,
      claimedUntil: sql`now() + make_interval(secs => ${claimSeconds})`,
    })
    .where(
      and(
        eq(webhookDeliveries.id, id),
        or(
          eq(webhookDeliveries.status, 'pending'),
          and(eq(webhookDeliveries.status, 'delivering'), lt(webhookDeliveries.claimedUntil, sql`now()`)),
        ),
        // A duplicate job sent early (sweep, retry overlap) does not jump the backoff.
        sql`(${webhookDeliveries.nextAttemptAt} is null or ${webhookDeliveries.nextAttemptAt} <= now() + interval '2 seconds')`,
      ),
    )
    .returning();
  return row;
}

export async function findEvent(id: string, db: Db): Promise<EventRow | undefined> {
  const [row] = await db.select().from(webhookEvents).where(eq(webhookEvents.id, id));
  return row;
}

export type DeliveryOutcome =
  | { status: 'delivered'; statusCode: number }
  | { status: 'pending'; statusCode: number | null; error: string; nextAttemptAt: Date }
  | { status: 'failed'; statusCode: number | null; error: string };

export async function recordOutcome(id: string, outcome: DeliveryOutcome, db: Db): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({
      status: outcome.status,
      claimedUntil: null,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.status === 'delivered' ? null : outcome.error,
      nextAttemptAt: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
      deliveredAt: outcome.status === 'delivered' ? sql`now()` : null,
    })
    .where(eq(webhookDeliveries.id, id));
}

const withEventType = { ...getTableColumns(webhookDeliveries), eventType: webhookEvents.type };

export async function findDelivery(id: string, db: Db): Promise<DeliveryWithEvent | undefined> {
  const [row] = await db
    .select(withEventType)
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.id, id));
  return row;
}

export async function listDeliveries(endpointId: string, page: number, limit: number, db: Db) {
  const rows = await db
    .select(withEventType)
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit)
    .offset((page - 1) * limit);
  const [total] = await db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
  return { rows, total: Number(total?.n ?? 0) };
}

/** Deliveries overdue by `graceSeconds` (their job was lost) or whose worker died mid-attempt, with their clinic. */
export async function overdueDeliveries(graceSeconds: number, db: Db, limit = 200): Promise<{ id: string; clinicId: string }[]> {
  const before = sql`now() - make_interval(secs => ${graceSeconds})`;
  return db
    .select({ id: webhookDeliveries.id, clinicId: webhookEndpoints.clinicId })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(
      or(
        and(
          eq(webhookDeliveries.status, 'pending'),
          sql`coalesce(${webhookDeliveries.nextAttemptAt}, ${webhookDeliveries.createdAt}) < ${before}`,
        ),
        and(eq(webhookDeliveries.status, 'delivering'), lt(webhookDeliveries.claimedUntil, before)),
      ),
    )
    .limit(limit);
}

/**
 * Deletes up to `batch` events recorded before `cutoff` with nothing left to send (no delivery
 * pending or in flight), with their deliveries (cascade). Returns how many went; the caller loops,
 * so one run never holds locks on a whole backlog.
 */
export async function deleteSettledEventsBefore(cutoff: Date, batch: number, db: Db): Promise<number> {
  const stillToSend = db
    .select({ one: sql`1` })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventId, webhookEvents.id), inArray(webhookDeliveries.status, ['pending', 'delivering'])));
  const settledAndOld = db
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(and(lt(webhookEvents.createdAt, cutoff), notExists(stillToSend)))
    .limit(batch);
  const deleted = await db.delete(webhookEvents).where(inArray(webhookEvents.id, settledAndOld)).returning({ id: webhookEvents.id });
  return deleted.length;
}
