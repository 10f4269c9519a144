import type { Db } from '../../platform/db/client.ts';
import { eq } from '../../platform/db/drizzle.ts';
import { clinics } from '../../platform/db/schema/index.ts';

/**
 * Serialises changes to what a clinic has configured until the transaction ends: a settings change
 * reads the current overrides and writes them back merged, and a template deletion resets the
 * default that names it, so neither may interleave with another. The clinic row is locked (the
 * settings row does not exist before the first change), `FOR NO KEY UPDATE` as the quota lock
 * (lockClinicQuota), so rows that only reference the clinic still go in meanwhile.
 */
export async function lockClinicConfiguration(clinicId: string, tx: Db): Promise<void> {
  await tx.select({ id: clinics.id }).from(clinics).where(eq(clinics.id, clinicId)).for('no key update');
}
