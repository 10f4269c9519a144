import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../callers.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { planFactsOf, savePlan } from '../plan/plan.repo.ts';
import { planContextOf } from '../plan/plan-context.ts';
import { refuseSigned } from '../store/locked.ts';
import { ownNote } from '../store/own-note.ts';
import { EMPTY_PLAN, type Plan } from '../store/plan.schemas.ts';
import { lockNoteRecord } from '../store/record.repo.ts';
import { planSettingsOf } from '../store/settings.repo.ts';
import { type PlanReplace, planOfInput } from './plan-input.ts';

/**
 * Replaces a completed, unsigned note's plan whole (and its worklist rows), with the previous and
 * the new plan in the note's history. Under the note's row lock, as a section edit: a signed note
 * answers 409 NOTE_SIGNED (after signing the plan changes only through an amendment's words), and a
 * replacement racing a signature either committed before it or is refused.
 */
async function replace({ db }: { db: Db }, caller: NotesCaller, noteId: string, input: PlanReplace): Promise<Plan> {
  return db.transaction(async (tx) => {
    const note = ownNote(caller, await lockNoteRecord(noteId, tx));
    refuseSigned(note);
    if (note.transcriptionStatus !== 'completed') {
      throw new AppError('NOTE_NOT_COMPLETED', 'Only a completed note has a plan to replace', {
        transcription_status: note.transcriptionStatus,
      });
    }
    const facts = await planFactsOf(noteId, tx);
    if (!facts) throw new AppError('NOTE_NOT_FOUND', 'Note not found');
    const plan = planOfInput(input, planContextOf(facts, await planSettingsOf(note.clinicId, tx)));
    await savePlan(noteId, note.clinicId, plan, tx);
    await recordNoteEvent(tx, noteId, 'plan_replaced', caller, { before: facts.plan ?? EMPTY_PLAN, after: plan });
    return plan;
  });
}

export function planEditService(deps: { db: Db }) {
  return bindService(deps, { replace });
}

export type PlanEditService = ReturnType<typeof planEditService>;
