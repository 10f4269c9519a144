import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { pageOf } from '../../platform/http/pagination.ts';
import type { NotesCaller } from '../callers.ts';
import { countDueFollowUps, dueFollowUps } from '../plan/plan.repo.ts';
import type { FollowUpKind } from '../store/plan.schemas.ts';
import type { Species } from '../store/vitals.schemas.ts';
import type { FollowUpsRange } from './follow-ups.schemas.ts';

// Absent bounds: every day a `date` column can hold that a plan could name.
const FIRST_DAY = '0001-01-01';
const LAST_DAY = '9999-12-31';

/**
 * The worklist of reminders: the caller's clinic's follow-ups due in the range, oldest due first,
 * a page of them and how many there are. Only the clinic's own notes: the rows carry the clinic.
 */
async function list({ db }: { db: Db }, caller: NotesCaller, query: FollowUpsRange) {
  const range = { from: query.due_from ?? FIRST_DAY, to: query.due_to ?? LAST_DAY };
  const [rows, total] = await Promise.all([
    dueFollowUps(caller.clinicId, range, pageOf(query), db),
    countDueFollowUps(caller.clinicId, range, db),
  ]);
  const items = rows.map((row) => ({
    note_id: row.noteId,
    external_id: row.externalId,
    name: row.name,
    species: row.species as Species | null,
    kind: row.kind as FollowUpKind,
    due_date: row.dueDate,
    text: row.text,
  }));
  return { items, total };
}

export function followUpsService(deps: { db: Db }) {
  return bindService(deps, { list });
}

export type FollowUpsService = ReturnType<typeof followUpsService>;
