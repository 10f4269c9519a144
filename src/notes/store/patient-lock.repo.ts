import type { Db } from '../../platform/db/client.ts';
import { sql } from '../../platform/db/drizzle.ts';

// One patient of one clinic (its external id) as a transaction-scoped advisory lock: a patient's
// erasure holds it exclusively from its start to its commit, and every write that creates a note
// for that patient holds it shared until its own commit. So an erasure waits for the notes being
// created for the patient and then erases them too, and a note created while the erasure runs is
// refused rather than left behind it (docs/privacy.md, "Notes"). 64 bits of a hash of the clinic
// and the id: two patients sharing a key only make each other wait.
const patientKey = (clinicId: string, externalId: string) => sql`hashtextextended(${`${clinicId}/${externalId}`}::text, 0)`;

/** The erasure's side: waits for the notes being created for the patient, then keeps new ones out. */
export async function lockPatientForErasure(clinicId: string, externalId: string, tx: Db): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${patientKey(clinicId, externalId)})`);
}

/**
 * A note about to be created for this patient takes the lock shared, without waiting: false while
 * the patient's erasure runs (refuseDuringErasure in locked.ts answers 409 then).
 */
export async function tryLockPatientForNewNote(clinicId: string, externalId: string, tx: Db): Promise<boolean> {
  const result = (await tx.execute(
    sql`select pg_try_advisory_xact_lock_shared(${patientKey(clinicId, externalId)}) as locked`,
  )) as unknown as {
    rows: { locked: boolean }[];
  };
  return result.rows[0]?.locked === true;
}
