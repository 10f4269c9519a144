import type { Db } from '../../platform/db/client.ts';
import { eq } from '../../platform/db/drizzle.ts';
import { clinics } from '../../platform/db/schema/index.ts';

export type ClinicRow = typeof clinics.$inferSelect;

export async function insertClinic(clinic: { name: string; quotaMinutes: number | null }, db: Db): Promise<ClinicRow> {
  const [row] = await db.insert(clinics).values(clinic).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function findClinic(id: string, db: Db): Promise<ClinicRow | undefined> {
  const [row] = await db.select().from(clinics).where(eq(clinics.id, id));
  return row;
}

export async function anyClinicExists(tx: Db): Promise<boolean> {
  const [row] = await tx.select({ id: clinics.id }).from(clinics).limit(1);
  return row !== undefined;
}
