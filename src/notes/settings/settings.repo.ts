import type { Db } from '../../platform/db/client.ts';
import { eq, sql } from '../../platform/db/drizzle.ts';
import { clinicSettings, clinics } from '../../platform/db/schema/index.ts';

export type SettingsRow = typeof clinicSettings.$inferSelect;
export type SettingsValues = Partial<Omit<SettingsRow, 'clinicId' | 'updatedAt'>>;

/**
 * Serialises the clinic's settings changes until the transaction ends: a change reads the current
 * overrides and writes them back merged, so two at once must not both start from the same ones.
 * The clinic row is locked rather than the settings row, which does not exist before the first
 * change; `FOR NO KEY UPDATE`, as the quota lock, so rows that only reference the clinic still go in.
 */
export async function lockClinicSettings(clinicId: string, tx: Db): Promise<void> {
  await tx.select({ id: clinics.id }).from(clinics).where(eq(clinics.id, clinicId)).for('no key update');
}

/** The clinic's settings row; undefined while every setting is at its default. */
export async function findSettings(clinicId: string, tx: Db): Promise<SettingsRow | undefined> {
  const [row] = await tx.select().from(clinicSettings).where(eq(clinicSettings.clinicId, clinicId));
  return row;
}

/** Writes the given settings (the row is created on the first change), returning the whole row. */
export async function saveSettings(clinicId: string, values: SettingsValues, tx: Db): Promise<SettingsRow> {
  const [row] = await tx
    .insert(clinicSettings)
    .values({ clinicId, ...values })
    .onConflictDoUpdate({ target: clinicSettings.clinicId, set: { ...values, updatedAt: sql`now()` } })
    .returning();
  if (!row) throw new Error('upsert returned no row');
  return row;
}
