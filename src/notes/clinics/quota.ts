import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import { audioSecondsSince, lockClinicQuota } from '../store/notes.repo.ts';

/**
 * Charges `durationSeconds` of processing to the clinic's monthly quota, inside the caller's
 * transaction: the clinic row is locked first, so two uploads or retries of one clinic cannot both
 * pass a check that only one of them fits. 403 QUOTA_EXCEEDED when it would be exceeded; the
 * caller's transaction then rolls back whatever it wrote.
 */
export async function chargeClinicQuota(clinicId: string, durationSeconds: number, tx: Db): Promise<void> {
  await chargeLockedClinicQuota(clinicId, await lockClinicQuota(clinicId, tx), durationSeconds, tx);
}

/**
 * `chargeClinicQuota` for a caller that already holds the clinic's lock (`lockClinicQuota`, which
 * answered `quotaMinutes`: null when the clinic has no quota).
 */
export async function chargeLockedClinicQuota(
  clinicId: string,
  quotaMinutes: number | null,
  durationSeconds: number,
  tx: Db,
): Promise<void> {
  if (quotaMinutes === null) return;
  const now = new Date();
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const usedMinutes = (await audioSecondsSince(clinicId, monthStart, tx)) / 60;
  if (usedMinutes + durationSeconds / 60 > quotaMinutes) {
    throw new AppError('QUOTA_EXCEEDED', 'The monthly processing quota of this clinic would be exceeded', {
      current_usage: Math.round(usedMinutes * 100) / 100,
      quota_limit: quotaMinutes,
      reset_date: toTimestamp(nextMonth),
    });
  }
}
