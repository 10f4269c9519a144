import type { Db } from '../../platform/db/client.ts';
import { and, count, desc, eq, gte, inArray, isNotNull, isNull, lt, sql } from '../../platform/db/drizzle.ts';
import { noteErasures, noteRetries, notes, webhookDeliveries, webhookEvents } from '../../platform/db/schema/index.ts';
import { liveSecondsSince } from '../store/notes.repo.ts';

export type ErasureRow = typeof noteErasures.$inferSelect;
export type NewErasure = typeof noteErasures.$inferInsert;

/** What an erasure needs of each note it deletes. */
export interface NoteToErase {
  id: string;
  clinicId: string;
  recordStatus: 'draft' | 'signed' | 'amended';
  externalId: string | null;
  audioKey: string;
}

const erasedColumns = {
  id: notes.id,
  clinicId: notes.clinicId,
  recordStatus: notes.recordStatus,
  externalId: notes.externalId,
  audioKey: notes.audioKey,
};

/**
 * The note, locked until the transaction ends: a signature, an amendment, an edit or a worker
 * completing it waits for the erasure and then finds nothing (they lock the same row).
 */
export async function lockNote(id: string, tx: Db): Promise<NoteToErase | undefined> {
  const [row] = await tx.select(erasedColumns).from(notes).where(eq(notes.id, id)).for('update');
  return row;
}

/** Every note of one patient (its external id) in the clinic, locked. */
export async function lockNotesOfPatient(clinicId: string, externalId: string, tx: Db): Promise<NoteToErase[]> {
  return tx
    .select(erasedColumns)
    .from(notes)
    .where(and(eq(notes.clinicId, clinicId), eq(notes.externalId, externalId)))
    .orderBy(notes.id)
    .for('update');
}

/**
 * Seconds of audio these notes charged to the clinic's quota since `since` (their uploads, live
 * parts and retries then, counted as `audioSecondsSince` counts them): the quota keeps counting them
 * after the notes are gone (note_erasures.quota_seconds).
 */
export async function quotaSecondsSince(ids: readonly string[], since: Date, tx: Db): Promise<number> {
  const [uploaded] = await tx
    .select({ seconds: sql<number>`coalesce(sum(${notes.audioDurationSeconds}), 0)::float8` })
    .from(notes)
    .where(and(inArray(notes.id, [...ids]), gte(notes.createdAt, since), isNull(notes.captureState)));
  const [retried] = await tx
    .select({ seconds: sql<number>`coalesce(sum(${noteRetries.audioDurationSeconds}), 0)::float8` })
    .from(noteRetries)
    .where(and(inArray(noteRetries.noteId, [...ids]), gte(noteRetries.createdAt, since)));
  const live = await liveSecondsSince(inArray(notes.id, [...ids]), since, tx);
  return Number(uploaded?.seconds ?? 0) + live + Number(retried?.seconds ?? 0);
}

/** The reason left on a delivery that was still to be sent when its note was deleted. */
export const NOT_SENT_NOTE_DELETED = 'not sent: the note was deleted';

/**
 * The clinic's webhook events about these notes keep their shell — id (the receiver's
 * `webhook-id`), type, time and `data.note_id`, for the receiver's own audit — and lose everything
 * else (name, sections, transcript, vitals, metadata, signature, amendment). Their deliveries keep
 * status, attempts and status codes; the last error goes (it may quote the receiver's answer, which
 * may echo the payload), and one still to be sent is failed with `NOT_SENT_NOTE_DELETED`, so no
 * sweep or retry sends it. Returns the ids of those deliveries (their jobs go too).
 */
export async function emptyWebhookEvents(clinicId: string, noteIds: readonly string[], tx: Db): Promise<string[]> {
  if (noteIds.length === 0) return [];
  const events = await tx
    .update(webhookEvents)
    .set({
      payload: sql`jsonb_build_object('type', ${webhookEvents.payload} -> 'type', 'timestamp', ${webhookEvents.payload} -> 'timestamp',
        'data', jsonb_build_object('note_id', ${webhookEvents.payload} -> 'data' -> 'note_id'))`,
    })
    .where(and(eq(webhookEvents.clinicId, clinicId), inArray(sql`${webhookEvents.payload} -> 'data' ->> 'note_id'`, [...noteIds])))
    .returning({ id: webhookEvents.id });
  if (events.length === 0) return [];
  const deliveries = await tx
    .update(webhookDeliveries)
    .set({
      lastError: sql`case when ${webhookDeliveries.status} in ('pending', 'delivering') then ${NOT_SENT_NOTE_DELETED} end`,
      status: sql`case when ${webhookDeliveries.status} in ('pending', 'delivering') then 'failed' else ${webhookDeliveries.status} end`,
      nextAttemptAt: null,
      claimedUntil: null,
    })
    .where(
      inArray(
        webhookDeliveries.eventId,
        events.map((event) => event.id),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return deliveries.map((delivery) => delivery.id);
}

/**
 * Deletes the notes; their sections, section versions, signature, amendments, history, retries and
 * transcript chunks go with them (foreign keys `on delete cascade`).
 */
export async function deleteNotes(ids: readonly string[], tx: Db): Promise<void> {
  if (ids.length === 0) return;
  await tx.delete(notes).where(inArray(notes.id, [...ids]));
}

export async function insertErasure(entry: NewErasure, tx: Db): Promise<ErasureRow> {
  const [row] = await tx.insert(noteErasures).values(entry).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

/**
 * A page of the clinic's erasure log, newest first, and how many entries it has; only the entries
 * of one external id when `digests` (its digest under each erasure log key) is given.
 */
export async function erasuresOf(clinicId: string, page: { limit: number; offset: number }, db: Db, digests?: readonly string[]) {
  const where = and(eq(noteErasures.clinicId, clinicId), digests ? inArray(noteErasures.externalIdHmac, [...digests]) : undefined);
  const rows = await db
    .select()
    .from(noteErasures)
    .where(where)
    .orderBy(desc(noteErasures.createdAt), desc(noteErasures.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(noteErasures).where(where);
  return { rows, total: Number(total?.n ?? 0) };
}

/** Up to `limit` entries written before the log was keyed: their plain SHA-256 of the external id. */
export function unkeyedErasures(limit: number, db: Db): Promise<{ id: string; sha256: string }[]> {
  return db
    .select({ id: noteErasures.id, sha256: sql<string>`${noteErasures.externalIdSha256}` })
    .from(noteErasures)
    .where(isNotNull(noteErasures.externalIdSha256))
    .limit(limit);
}

/** Replaces an entry's plain SHA-256 by its keyed digest (unless another process did it first). */
export async function keyErasure(id: string, sha256: string, hmac: string, db: Db): Promise<void> {
  await db
    .update(noteErasures)
    .set({ externalIdHmac: hmac, externalIdSha256: null })
    .where(and(eq(noteErasures.id, id), eq(noteErasures.externalIdSha256, sha256)));
}

/** Up to `limit` log entries written before `cutoff`, in one statement; returns how many went. */
export async function deleteErasuresBefore(cutoff: Date, limit: number, db: Db): Promise<number> {
  const old = db.select({ id: noteErasures.id }).from(noteErasures).where(lt(noteErasures.createdAt, cutoff)).limit(limit);
  const deleted = await db.delete(noteErasures).where(inArray(noteErasures.id, old)).returning({ id: noteErasures.id });
  return deleted.length;
}
