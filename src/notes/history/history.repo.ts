import type { Db } from '../../platform/db/client.ts';
import { asc, eq, sql } from '../../platform/db/drizzle.ts';
import { type NoteHistoryEvent, noteHistory, notesApiKeys } from '../../platform/db/schema/index.ts';

export type HistoryRow = typeof noteHistory.$inferSelect;

export interface NewHistoryEvent {
  noteId: string;
  event: NoteHistoryEvent;
  /** The key that made the change; null for the worker's events. */
  keyId: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

/** One event; the key's name is copied from the key as it is now (one primary-key lookup). */
export async function insertHistoryEvent(event: NewHistoryEvent, tx: Db): Promise<void> {
  await tx.insert(noteHistory).values({
    noteId: event.noteId,
    event: event.event,
    keyId: event.keyId,
    keyName:
      event.keyId === null ? null : sql`(select ${notesApiKeys.name} from ${notesApiKeys} where ${notesApiKeys.id} = ${event.keyId})`,
    requestId: event.requestId,
    details: event.details,
  });
}

/** Every event of a note, oldest first. */
export async function historyOf(noteId: string, db: Db): Promise<HistoryRow[]> {
  return db.select().from(noteHistory).where(eq(noteHistory.noteId, noteId)).orderBy(asc(noteHistory.id));
}

/** The same worker event (no key, no request) for many notes, in one statement. */
export async function insertWorkerEvents(
  noteIds: readonly string[],
  event: NoteHistoryEvent,
  details: Record<string, unknown>,
  tx: Db,
): Promise<void> {
  if (noteIds.length === 0) return;
  await tx.insert(noteHistory).values(noteIds.map((noteId) => ({ noteId, event, keyId: null, keyName: null, requestId: null, details })));
}
