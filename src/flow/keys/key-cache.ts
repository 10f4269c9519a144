import type { CacheInvalidation } from '../../platform/db/cache-invalidation.ts';
import type { Db } from '../../platform/db/client.ts';
import { findActiveKeyByHash } from './keys.repo.ts';

export type ActiveKey = NonNullable<Awaited<ReturnType<typeof findActiveKeyByHash>>>;

/**
 * How long a bearer key lookup (the key, its scopes, its workspace's name and billing status) is
 * reused. A revocation or workspace change is announced as it commits (`CRM_KEY_INVALIDATION`),
 * and every process following the announcements (`followCrmKeyInvalidations`) drops its cache
 * then; the TTL is only the backstop of a missed announcement.
 */
export const CRM_KEY_CACHE_TTL_MS = 2_000;
/** The cache-invalidation topic of a key revocation or workspace change. */
export const CRM_KEY_INVALIDATION = 'crm_api_keys';
const MAX_ENTRIES = 10_000;

// One cache per database handle (an app; tests run several apps, each its own handle, as separate
// processes would be).
const caches = new WeakMap<Db, CrmKeyCache>();

export function crmKeyCache(db: Db): CrmKeyCache {
  const cache = caches.get(db) ?? new CrmKeyCache(db);
  caches.set(db, cache);
  return cache;
}

/** A revocation or workspace change through `db`: that app stops trusting its cached lookups at once. */
export function invalidateCrmKeyCache(db: Db): void {
  caches.get(db)?.clear();
}

/**
 * Clears the cache of `db` whenever any process announces a revocation or workspace change; caches
 * nothing while those announcements cannot reach this process. Returns the unsubscribe.
 */
export function followCrmKeyInvalidations(db: Db, invalidation: CacheInvalidation): () => void {
  const cache = crmKeyCache(db);
  cache.trusted = () => invalidation.live;
  return invalidation.onInvalidate(CRM_KEY_INVALIDATION, () => cache.clear());
}

interface Entry {
  key: ActiveKey | null;
  until: number;
}

/**
 * Active keys by token hash, unknown ones too (so a flood of bad tokens does not become a flood of
 * queries; failures are counted by the brute-force guard all the same). Why this is not the same
 * cache as the Notes key lookup (`notes/auth/key-authenticator.ts`): docs/decisions.md, "Two key caches".
 */
export class CrmKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly db: Db;
  private generation = 0;
  trusted: () => boolean = () => true;

  constructor(db: Db) {
    this.db = db;
  }

  async find(tokenHash: string): Promise<ActiveKey | null> {
    const now = Date.now();
    const cached = this.entries.get(tokenHash);
    if (cached && cached.until > now) return cached.key;
    const generation = this.generation;
    const key = (await findActiveKeyByHash(tokenHash, this.db)) ?? null;
    // A lookup that started before a clear() may have read the key before its revocation.
    if (generation !== this.generation || !this.trusted()) return key;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(tokenHash, { key, until: now + CRM_KEY_CACHE_TTL_MS });
    return key;
  }

  clear(): void {
    this.entries.clear();
    this.generation++;
  }
}
