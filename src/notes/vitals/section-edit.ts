// A section edited by the vet (a draft's section edit, or an amendment of a signed note): when the
// edit changes the words a vital came from, the vital is read again from the new text. Compared by
// value, so this works for verbatim sections (the transcript's own words) and drafted ones
// ("T 39,8 °C") alike: a value the old text said and the new one does not is dropped from the note;
// a value the new text says and the old one did not is added, with the words as edited and no
// evidence (no audio said them), flagged against the clinic's ranges of today. Vitals the edit did
// not touch keep their evidence and flags.

import type { Db } from '../../platform/db/client.ts';
import type { StoredVital } from '../../platform/db/schema/index.ts';
import type { Vital } from '../store/vitals.schemas.ts';
import { distinctVitals, flagVitals, type UnflaggedVital, vitalsOfText } from './note-vitals.ts';
import { effectiveRanges } from './reference-ranges.ts';
import { noteVitals, rangeOverridesOf, saveNoteVitals } from './vitals.repo.ts';

const keyOf = (vital: UnflaggedVital | StoredVital) => JSON.stringify([vital.code, vital.value, vital.unit, vital.comparator]);

/** The note's vitals after the edit, or null when the edit changed none. */
export function vitalsAfterEdit(current: Vital[], before: string, after: string): { removed: Set<string>; added: UnflaggedVital[] } | null {
  const old = new Map(vitalsOfText(before).map((vital) => [keyOf(vital), vital]));
  const now = new Map(vitalsOfText(after).map((vital) => [keyOf(vital), vital]));
  const removed = new Set([...old.keys()].filter((key) => !now.has(key)));
  const added = [...now.entries()].filter(([key]) => !old.has(key)).map(([, vital]) => vital);
  if (removed.size === 0 && added.length === 0) return null;
  // A value already on the note (said elsewhere too) is not added twice.
  const kept = new Set(current.filter((vital) => !removed.has(keyOf(vital))).map(keyOf));
  return { removed, added: added.filter((vital) => !kept.has(keyOf(vital))) };
}

/** Re-reads the vitals an edit changed, in the edit's transaction. */
export async function reextractEditedVitals(
  edit: { noteId: string; clinicId: string; before: string; after: string },
  tx: Db,
): Promise<void> {
  const note = await noteVitals(edit.noteId, tx);
  if (!note) return;
  const current = note.vitals as Vital[];
  const change = vitalsAfterEdit(current, edit.before, edit.after);
  if (!change) return;
  const ranges = effectiveRanges(await rangeOverridesOf(edit.clinicId, tx));
  const vitals = distinctVitals([
    ...current.filter((vital) => !change.removed.has(keyOf(vital))),
    ...flagVitals(change.added, note.species, ranges),
  ]);
  await saveNoteVitals(edit.noteId, vitals, tx);
}
