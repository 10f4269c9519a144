import type { Db } from '../../platform/db/client.ts';
import { allSealedSecrets, replaceSealedSecrets } from './endpoints.repo.ts';
import { type SecretBox, SecretUnreadableError } from './secrets.ts';

export interface ResealReport {
  key_id: string;
  endpoints: number;
  resealed: number;
  /** Endpoints none of the configured keys can open: their secrets must be rotated or re-registered. */
  unreadable: string[];
}

/**
 * Re-encrypts every signing secret not yet under the current key (after WEBHOOK_SECRET_KEY was
 * rotated and the old key set as WEBHOOK_SECRET_KEY_PREVIOUS), so the previous key can then be
 * dropped. The secrets themselves do not change: receivers notice nothing. Safe to run again.
 */
export async function resealSecrets(box: SecretBox, db: Db): Promise<ResealReport> {
  const rows = await allSealedSecrets(db);
  const report: ResealReport = { key_id: box.currentKeyId, endpoints: rows.length, resealed: 0, unreadable: [] };
  for (const row of rows) {
    const stale = box.isStale(row.secretEncrypted) || (row.previousSecretEncrypted !== null && box.isStale(row.previousSecretEncrypted));
    if (!stale) continue;
    try {
      const after = {
        secretEncrypted: box.seal(box.open(row.secretEncrypted, row.id), row.id),
        previousSecretEncrypted:
          row.previousSecretEncrypted === null ? null : box.seal(box.open(row.previousSecretEncrypted, row.id), row.id),
      };
      if (await replaceSealedSecrets(row, after, db)) report.resealed += 1;
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      report.unreadable.push(row.id);
    }
  }
  return report;
}
