import type { CacheInvalidation } from '../../platform/db/cache-invalidation.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller, Permission } from '../callers.ts';
import { hashNotesKey, NOTES_KEY_INVALIDATION, NOTES_KEY_PATTERN } from './api-key.ts';
import { prepareFindKeyByHash } from './key-lookup.repo.ts';

interface CachedKey {
  caller: NotesCaller | null;
  expiresAt: Date | null;
  cachedUntil: number;
}

/**
 * Resolves an X-API-KEY header to its caller. Lookups are by SHA-256 and cached for `ttlMs`. A
 * revocation by any process empties the cache of every process as it commits
 * (`followInvalidations`); while those announcements cannot reach this process, nothing is cached.
 * Expiry is checked on every use. Unknown (and unusable) keys are remembered in a separate bounded
 * map, so that the same bad key repeated costs no query and a flood of random ones never evicts real
 * keys (failed keys are counted and blocked per address by the brute-force guard, in notes-access.ts).
 * Why this is not the same cache as the CRM bearer lookup (`flow/keys/key-cache.ts`):
 * docs/decisions.md, "Two key caches".
 */
export class KeyAuthenticator {
  private readonly cache = new Map<string, CachedKey>();
  private readonly unknown = new Map<string, CachedKey>();
  private readonly findByHash: ReturnType<typeof prepareFindKeyByHash>;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  // Bumped by forget(): a lookup that began before it may have read a key that is revoked now.
  private generation = 0;
  private trusted: () => boolean = () => true;

  constructor(db: Db, ttlMs: number, maxEntries = 10_000) {
    this.findByHash = prepareFindKeyByHash(db);
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
  }

  async authenticate(header: string | string[] | undefined): Promise<NotesCaller> {
    const hash = keyHashOf(header);
    // A malformed key is refused without touching the database.
    if (!hash) throw invalidApiKey();
    const now = Date.now();
    let entry = this.cache.get(hash) ?? this.unknown.get(hash);
    if (!entry || entry.cachedUntil <= now) {
      entry = await this.load(hash, now);
    }
    const caller = callerOf(entry, now);
    if (!caller) throw invalidApiKey();
    return caller;
  }

  /**
   * The caller of a valid key held in the cache, without waiting for anything (the common case of a
   * busy key); undefined for anything else, which `authenticate` then decides.
   */
  cachedCaller(header: string | string[] | undefined): NotesCaller | undefined {
    const hash = keyHashOf(header);
    const entry = hash === undefined ? undefined : this.cache.get(hash);
    const now = Date.now();
    return entry && entry.cachedUntil > now ? callerOf(entry, now) : undefined;
  }

  /** Forgets every cached key (this process): used right after a local revocation. */
  forget(): void {
    this.cache.clear();
    this.unknown.clear();
    this.generation++;
  }

  /** Forgets every cached key whenever any process revokes one; caches nothing while deaf to that. */
  followInvalidations(invalidation: CacheInvalidation): () => void {
    this.trusted = () => invalidation.live;
    return invalidation.onInvalidate(NOTES_KEY_INVALIDATION, () => this.forget());
  }

  private async load(hash: string, now: number): Promise<CachedKey> {
    const generation = this.generation;
    const [row] = await this.findByHash.execute({ hash });
    const usable = row && !row.revokedAt && !row.disabledAt;
    const entry: CachedKey = {
      caller: usable ? { keyId: row.id, clinicId: row.clinicId, role: row.role, permissions: row.permissions as Permission[] } : null,
      expiresAt: row?.expiresAt ?? null,
      cachedUntil: now + this.ttlMs,
    };
    if (generation !== this.generation || !this.trusted()) return entry;
    const [map, other] = entry.caller ? [this.cache, this.unknown] : [this.unknown, this.cache];
    other.delete(hash);
    if (map.size >= this.maxEntries) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
    map.set(hash, entry);
    return entry;
  }
}

// One body for every reason (missing, malformed, unknown, expired, revoked, disabled): a caller
// probing keys learns nothing about which of them it hit.
export function invalidApiKey(): AppError {
  return new AppError('INVALID_API_KEY', 'Missing or invalid API key', {
    hint: 'Send an active key of your clinic in the X-API-KEY header (vnk_ followed by 32 hex characters).',
  });
}

/** The SHA-256 of the header's key, or undefined when it is not a well-formed Notes key. */
function keyHashOf(header: string | string[] | undefined): string | undefined {
  const key = Array.isArray(header) ? header[0] : header;
  return key && NOTES_KEY_PATTERN.test(key) ? hashNotesKey(key) : undefined;
}

/** The entry's caller while its key is valid (known and not expired at `now`). */
function callerOf(entry: CachedKey, now: number): NotesCaller | undefined {
  if (!entry.caller || (entry.expiresAt && entry.expiresAt.getTime() <= now)) return undefined;
  return entry.caller;
}
