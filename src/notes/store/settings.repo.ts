import type { Db } from '../../platform/db/client.ts';
import { eq, sql } from '../../platform/db/drizzle.ts';
import { clinicSettings } from '../../platform/db/schema/index.ts';

export type SettingsRow = typeof clinicSettings.$inferSelect;
export type SettingsValues = Partial<Omit<SettingsRow, 'clinicId' | 'updatedAt'>>;

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

/** The time zone of a clinic that has not chosen one (the column's default). */
export const DEFAULT_TIMEZONE = 'America/Sao_Paulo';

/** What a note's plan is read with: the clinic's time zone and its own drug names. */
export async function planSettingsOf(clinicId: string, db: Db): Promise<{ timezone: string; drugNames: string[] }> {
  const [row] = await db
    .select({ timezone: clinicSettings.timezone, drugNames: clinicSettings.drugNames })
    .from(clinicSettings)
    .where(eq(clinicSettings.clinicId, clinicId));
  return { timezone: row?.timezone ?? DEFAULT_TIMEZONE, drugNames: row?.drugNames ?? [] };
}

/** The clinic's time zone alone (a new note's visit date), without its drug names. */
export async function clinicTimezone(clinicId: string, db: Db): Promise<string> {
  const [row] = await db.select({ timezone: clinicSettings.timezone }).from(clinicSettings).where(eq(clinicSettings.clinicId, clinicId));
  return row?.timezone ?? DEFAULT_TIMEZONE;
}
