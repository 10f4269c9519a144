import type { Db } from '../../platform/db/client.ts';
import { eq } from '../../platform/db/drizzle.ts';
import { clinicSettings, notes, type StoredVital } from '../../platform/db/schema/index.ts';
import type { Species } from '../store/vitals.schemas.ts';
import type { RangeOverrides } from './reference-ranges.ts';

/** The clinic's overrides of the default ranges ({} until an administrator sets one). */
export async function rangeOverridesOf(clinicId: string, tx: Db): Promise<RangeOverrides> {
  const [row] = await tx
    .select({ ranges: clinicSettings.referenceRanges })
    .from(clinicSettings)
    .where(eq(clinicSettings.clinicId, clinicId));
  return (row?.ranges ?? {}) as RangeOverrides;
}

/** A note's species and vitals, for a section edit that may change them (the section row is already locked). */
export async function noteVitals(noteId: string, tx: Db): Promise<{ species: Species | null; vitals: StoredVital[] } | undefined> {
  const [row] = await tx.select({ species: notes.species, vitals: notes.vitals }).from(notes).where(eq(notes.id, noteId));
  return row ? { species: row.species as Species | null, vitals: row.vitals } : undefined;
}

export async function saveNoteVitals(noteId: string, vitals: StoredVital[], tx: Db): Promise<void> {
  await tx.update(notes).set({ vitals }).where(eq(notes.id, noteId));
}
