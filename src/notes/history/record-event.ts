import type { Db } from '../../platform/db/client.ts';
import type { NoteHistoryEvent } from '../../platform/db/schema/index.ts';
import type { NotesCaller } from '../callers.ts';
import { insertHistoryEvent } from './history.repo.ts';

/**
 * Records one event in a note's history. A write calls it inside its own transaction, so the event
 * commits with the change or not at all, and a refused request (which throws before) writes none.
 * `caller` is null for the worker's events (completed, failed): no key, no request.
 */
export function recordNoteEvent(
  tx: Db,
  noteId: string,
  event: NoteHistoryEvent,
  caller: NotesCaller | null,
  details: Record<string, unknown> = {},
): Promise<void> {
  return insertHistoryEvent({ noteId, event, keyId: caller?.keyId ?? null, requestId: caller?.request?.id ?? null, details }, tx);
}
