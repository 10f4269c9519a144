import type { CacheInvalidation } from '../../platform/db/cache-invalidation.ts';
import type { Db } from '../../platform/db/client.ts';
import { prepareFindActiveKeyByHash } from './keys.repo.ts';

export type ActiveKey = Awaited<ReturnType<ReturnType<typeof prepareFindActiveKeyByHash>['execute']>>[number];

/**
 * How long a bearer key lookup (the key, its scopes, its workspace's name and billing status) is
 * reused. A revocation or workspace change is announced as it commits (`CRM_KEY_INVALIDATION`),
 * and every process following the announcements (`followCrmKeyInvalidations`) drops its cache
 * then; the TTL is only the backstop of a missed announcement.
 */
export const CRM_KEY_CACHE_TTL_MS = 2_000;
/** The cache-invalidation topic of a key revocation or workspace change. */
export const CRM_KEY_INVALIDATION = 'crm_api_keys';
/** How many valid keys one process keeps; past it the least recently used goes. */
export const CRM_KEY_CACHE_MAX_ENTRIES = 10_000;

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
  key: ActiveKey;
  until: number;
}

/**
 * Active keys by token hash, and only those: an unknown token is looked up every time it is
 * presented (one execution of a prepared statement, by the token hash's unique index) and never
 * remembered, so no number of well-formed random tokens — whose checksum anyone can compute —
 * can take a valid key's place, and an address the brute-force guard blocked, which only ever
 * presents tokens that fail, puts nothing in it. Each failure is counted by that guard all the same
 * (docs/security.md, "Guessing CRM tokens"). Past `CRM_KEY_CACHE_MAX_ENTRIES` valid keys the least
 * recently used one goes. Why this is not the same cache as the Notes key lookup
 * (`notes/auth/key-authenticator.ts`): docs/decisions.md, "Two key caches".
 */
export class CrmKeyCache {
  // Insertion order is use order: a hit moves its entry to the end, so the first is the least recently used.
  private readonly entries = new Map<string, Entry>();
  private readonly findByHash: ReturnType<typeof prepareFindActiveKeyByHash>;
  private readonly maxEntries: number;
  private generation = 0;
  trusted: () => boolean = () => true;
  /** Database lookups so far (a metric for tests and benchmarks: a cache hit costs none). */
  lookups = 0;

  constructor(db: Db, maxEntries = CRM_KEY_CACHE_MAX_ENTRIES) {
    this.findByHash = prepareFindActiveKeyByHash(db);
    this.maxEntries = maxEntries;
  }

  /** How many valid keys are cached. */
  get size(): number {
    return this.entries.size;
  }

  async find(tokenHash: string): Promise<ActiveKey | null> {
    const now = Date.now();
    const cached = this.entries.get(tokenHash);
    if (cached && cached.until > now) {
      this.entries.delete(tokenHash);
      this.entries.set(tokenHash, cached);
      return cached.key;
    }
    if (cached) this.entries.delete(tokenHash);
    const generation = this.generation;
    this.lookups++;
    const [key] = await this.findByHash.execute({ hash: tokenHash });
    if (!key) return null;
    // A lookup that started before a clear() may have read the key before its revocation.
    if (generation !== this.generation || !this.trusted()) return key;
    this.entries.delete(tokenHash);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    this.entries.set(tokenHash, { key, until: now + CRM_KEY_CACHE_TTL_MS });
    return key;
  }

  clear(): void {
    this.entries.clear();
    this.generation++;
  }
}
