import type { Db } from '../../platform/db/client.ts';
import { eq } from '../../platform/db/drizzle.ts';
import { clinics } from '../../platform/db/schema/index.ts';

/**
 * Locks the clinic's row until the transaction ends and returns its quota. One lock for what must
 * not interleave within a clinic: quota checks (uploads, live parts, retries), settings changes
 * (read, merge, write back) and a template deletion that resets the default naming it.
 *
 * `FOR NO KEY UPDATE`, not `FOR UPDATE`: it still queues every other holder, but lets rows that
 * merely reference the clinic be written meanwhile (their foreign-key check takes `KEY SHARE`).
 * With `FOR UPDATE`, a retry holding the clinic and waiting for its note deadlocked against the
 * worker holding that note and inserting a row of the same clinic.
 */
export async function lockClinic(clinicId: string, tx: Db): Promise<{ quotaMinutes: number | null } | undefined> {
  const [row] = await tx.select({ quotaMinutes: clinics.quotaMinutes }).from(clinics).where(eq(clinics.id, clinicId)).for('no key update');
  return row;
}
