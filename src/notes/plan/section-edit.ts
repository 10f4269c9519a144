// A section edited by the vet (a draft's section edit, or an amendment of a signed note): the plan
// is read again from the words the edit changed, as the vitals are (vitals/section-edit.ts). The old
// and the new text are each read on their own; an item the old text said and the new one does not
// leaves the plan, an item the new text says and the old one did not joins it with the words as
// edited and no evidence (no audio said them). Items the edit did not touch keep their id and
// evidence. Compared by what an item says (drug, dose, route, ...), not by its words or its id.
// Per-kg totals follow the note's weight: an edit that changes the weight said recomputes every
// medication's `computed_total`.

import { randomUUID } from 'node:crypto';
import type { Db } from '../../platform/db/client.ts';
import type { Plan } from '../store/plan.schemas.ts';
import { EMPTY_PLAN } from '../store/plan.schemas.ts';
import { planSettingsOf } from '../store/settings.repo.ts';
import { computedTotal, type PlanContext, planOfText } from './extract-plan.ts';
import { planFactsOf, savePlan } from './plan.repo.ts';
import { planContextOf } from './plan-context.ts';

type ListName = keyof Plan;
const LISTS: ListName[] = ['medications', 'exams', 'vaccines', 'follow_ups'];

/** JSON with every object's keys in order: a stored item (jsonb reorders keys) compares equal to a fresh one. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
}

/**
 * What an item says, without where it was said (`id`, `text`, `evidence`) nor what follows from the
 * note rather than the words (`computed_total`, `due_date`: an edit that also changes the weight
 * must still find the items of the old words).
 */
function keyOf(item: { id: string; text: string; evidence: unknown }): string {
  const { id: _id, text: _text, evidence: _evidence, computed_total: _total, due_date: _due, ...said } = item as Record<string, unknown>;
  return canonical(said);
}

/** The plan after an edit from `before` to `after`, or null when the edit changed no item. */
export function planAfterEdit(current: Plan, before: string, after: string, context: PlanContext): Plan | null {
  const old = planOfText(before, context);
  const now = planOfText(after, context);
  let changed = false;
  const next = { ...current };
  for (const list of LISTS) {
    const oldKeys = new Set((old[list] as Plan[ListName]).map(keyOf));
    const nowKeys = new Set((now[list] as Plan[ListName]).map(keyOf));
    const removed = new Set([...oldKeys].filter((key) => !nowKeys.has(key)));
    const kept = (current[list] as Plan[ListName]).filter((item) => !removed.has(keyOf(item)));
    const keptKeys = new Set(kept.map(keyOf));
    // An item already in the plan (said elsewhere too) is not added twice.
    const added = (now[list] as Plan[ListName])
      .filter((item) => !oldKeys.has(keyOf(item)) && !keptKeys.has(keyOf(item)))
      .map((item) => ({ ...item, id: randomUUID(), evidence: null }));
    if (removed.size === 0 && added.length === 0) continue;
    changed = true;
    (next as Record<ListName, unknown[]>)[list] = [...kept, ...added];
  }
  return changed ? next : null;
}

/**
 * Re-reads the plan items an edit changed, in the edit's transaction (before the event that renders
 * the note). A note completed before plans existed starts from empty lists.
 */
export async function reextractEditedPlan(edit: { noteId: string; before: string; after: string }, tx: Db): Promise<void> {
  const note = await planFactsOf(edit.noteId, tx);
  if (note?.transcriptionStatus !== 'completed') return;
  const context = planContextOf(note, await planSettingsOf(note.clinicId, tx));
  const current = note.plan ?? EMPTY_PLAN;
  const edited = planAfterEdit(current, edit.before, edit.after, context) ?? current;
  const plan = withTotals(edited, context.weightKg);
  if (canonical(plan) !== canonical(current)) await savePlan(edit.noteId, note.clinicId, plan, tx);
}

/** Every medication's per-kg total for the weight the note states now. */
function withTotals(plan: Plan, weightKg: number | null): Plan {
  return {
    ...plan,
    medications: plan.medications.map((item) => ({ ...item, computed_total: computedTotal(item.dose_value, item.dose_unit, weightKg) })),
  };
}
