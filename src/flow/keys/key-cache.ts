import type { Db } from '../../platform/db/client.ts';
import { findActiveKeyByHash } from './keys.repo.ts';

export type ActiveKey = NonNullable<Awaited<ReturnType<typeof findActiveKeyByHash>>>;

/**
 * How long a bearer key lookup (the key, its scopes, its workspace's name and billing status) is
 * reused. A revocation or billing change made by another process takes effect within this; one
 * made in this process at once (`invalidateCrmKeyCache`).
 */
export const CRM_KEY_CACHE_TTL_MS = 2_000;
const MAX_ENTRIES = 10_000;

// Bumped by every revocation or workspace change in this process: entries from an older epoch are
// stale whatever their age.
let epoch = 0;

export function invalidateCrmKeyCache(): void {
  epoch++;
}

interface Entry {
  key: ActiveKey | null;
  until: number;
  epoch: number;
}

/**
 * Active keys by token hash, unknown ones too (so a flood of bad tokens does not become a flood of
 * queries; failures are counted by the brute-force guard all the same).
 */
export class CrmKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  async find(tokenHash: string): Promise<ActiveKey | null> {
    const now = Date.now();
    const cached = this.entries.get(tokenHash);
    if (cached && cached.until > now && cached.epoch === epoch) return cached.key;
    const loadedAt = epoch;
    const key = (await findActiveKeyByHash(tokenHash, this.db)) ?? null;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(tokenHash, { key, until: now + CRM_KEY_CACHE_TTL_MS, epoch: loadedAt });
    return key;
  }
}
