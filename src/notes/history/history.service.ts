import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { NotesCaller } from '../callers.ts';
import { ownNote } from '../store/own-note.ts';
import { findNoteOwner } from '../store/record.repo.ts';
import { historyOf } from './history.repo.ts';

/** A note's history as the API shows it, oldest first. */
async function list({ db }: { db: Db }, caller: NotesCaller, noteId: string) {
  ownNote(caller, await findNoteOwner(noteId, db));
  const rows = await historyOf(noteId, db);
  return rows.map((row) => ({
    event: row.event,
    at: toTimestamp(row.at),
    key_id: row.keyId,
    key_name: row.keyName,
    request_id: row.requestId,
    details: row.details,
  }));
}

export function historyService(deps: { db: Db }) {
  return bindService(deps, { list });
}

export type HistoryService = ReturnType<typeof historyService>;
