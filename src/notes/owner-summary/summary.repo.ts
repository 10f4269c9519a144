import type { Db } from '../../platform/db/client.ts';
import { and, asc, desc, eq, sql } from '../../platform/db/drizzle.ts';
import { noteOwnerSummaries, noteOwnerSummaryDeliveries } from '../../platform/db/schema/index.ts';

export type SummaryRow = typeof noteOwnerSummaries.$inferSelect;
export type DeliveryRow = typeof noteOwnerSummaryDeliveries.$inferSelect;

/** The note's newest summary version. */
export async function newestSummary(noteId: string, db: Db): Promise<SummaryRow | undefined> {
  const [row] = await db
    .select()
    .from(noteOwnerSummaries)
    .where(eq(noteOwnerSummaries.noteId, noteId))
    .orderBy(desc(noteOwnerSummaries.version))
    .limit(1);
  return row;
}

/** Writes the next version (the caller holds the note's row lock, so versions never collide). */
export async function insertSummary(values: Omit<typeof noteOwnerSummaries.$inferInsert, 'version' | 'id'>, tx: Db): Promise<SummaryRow> {
  const [row] = await tx
    .insert(noteOwnerSummaries)
    .values({
      ...values,
      version: sql`(select coalesce(max(version), 0) + 1 from note_owner_summaries where note_id = ${values.noteId})`,
    })
    .returning();
  return row!;
}

export async function updateSummary(
  id: string,
  changes: Partial<Pick<SummaryRow, 'text' | 'status' | 'contentSha256' | 'approvedBy' | 'approvedAt'>>,
  tx: Db,
): Promise<SummaryRow> {
  const [row] = await tx
    .update(noteOwnerSummaries)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(noteOwnerSummaries.id, id))
    .returning();
  return row!;
}

export async function deliveriesOf(summaryId: string, db: Db): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(noteOwnerSummaryDeliveries)
    .where(eq(noteOwnerSummaryDeliveries.summaryId, summaryId))
    .orderBy(asc(noteOwnerSummaryDeliveries.createdAt), asc(noteOwnerSummaryDeliveries.id));
}

/** Records a send; undefined when the message is already recorded (a replayed Idempotency-Key). */
export async function insertDelivery(values: typeof noteOwnerSummaryDeliveries.$inferInsert, tx: Db): Promise<DeliveryRow | undefined> {
  const [row] = await tx
    .insert(noteOwnerSummaryDeliveries)
    .values(values)
    .onConflictDoNothing({ target: noteOwnerSummaryDeliveries.messageId })
    .returning();
  return row;
}

export async function findDeliveryByMessage(messageId: string, db: Db): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(noteOwnerSummaryDeliveries).where(eq(noteOwnerSummaryDeliveries.messageId, messageId));
  return row;
}

export async function findDelivery(id: string, db: Db): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(noteOwnerSummaryDeliveries).where(eq(noteOwnerSummaryDeliveries.id, id));
  return row;
}

/** The delivery, locked; undefined once its note was erased. */
export async function lockDelivery(id: string, tx: Db): Promise<DeliveryRow | undefined> {
  const [row] = await tx.select().from(noteOwnerSummaryDeliveries).where(eq(noteOwnerSummaryDeliveries.id, id)).for('update');
  return row;
}

export async function settleDelivery(id: string, outcome: { status: 'sent' | 'failed'; sentAt: Date | null }, tx: Db): Promise<void> {
  await tx
    .update(noteOwnerSummaryDeliveries)
    .set(outcome)
    .where(and(eq(noteOwnerSummaryDeliveries.id, id), eq(noteOwnerSummaryDeliveries.status, 'queued')));
}

export async function findSummary(id: string, db: Db): Promise<SummaryRow | undefined> {
  const [row] = await db.select().from(noteOwnerSummaries).where(eq(noteOwnerSummaries.id, id));
  return row;
}
