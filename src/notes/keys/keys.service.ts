import type { z } from 'zod';
import { bindService } from '../../platform/bind-service.ts';
import { announceInvalidation } from '../../platform/db/announce-invalidation.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { pageOf } from '../../platform/http/pagination.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import { generateNotesKey, NOTES_KEY_INVALIDATION, smallestRoleFor } from '../auth/api-key.ts';
import type { KeyAuthenticator } from '../auth/key-authenticator.ts';
import { type NotesCaller, type Permission, ROLE_PERMISSIONS, ROLES, type Role } from '../callers.ts';
import { refuseAtLimit } from '../store/clinic-limits.ts';
import { lockClinic } from '../store/notes.repo.ts';
import {
  countActiveKeys,
  countKeysOfClinic,
  findKeyById,
  insertKey,
  listKeysOfClinic,
  type NotesApiKeyRow,
  revokeKeyTree,
} from './keys.repo.ts';
import { ACTIVE_KEY_LIMIT, type ApiKeyRecord, type CreateApiKeyBody, type UsageEnvelope, type UsageQuery } from './keys.schemas.ts';
import { usageOfKey } from './usage.repo.ts';
import type { UsageRecorder } from './usage-recorder.ts';

type KeyRecord = z.infer<typeof ApiKeyRecord>;

export function toKeyRecord(row: NotesApiKeyRow, now = new Date()): KeyRecord {
  const status = row.revokedAt ? 'revoked' : row.disabledAt ? 'disabled' : row.expiresAt && row.expiresAt <= now ? 'expired' : 'active';
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    role: row.role,
    permissions: row.permissions as Permission[],
    status,
    expires_at: row.expiresAt ? toTimestamp(row.expiresAt) : null,
    last_used_at: row.lastUsedAt ? toTimestamp(row.lastUsedAt) : null,
    revoked_at: row.revokedAt ? toTimestamp(row.revokedAt) : null,
    created_by_key_id: row.createdByKeyId,
    created_at: toTimestamp(row.createdAt),
  };
}

/**
 * A key never gets more than its creator: no permission and no role above the creator's, and no
 * life beyond the creator's expiry (otherwise a short-lived key could mint itself a permanent
 * successor). The expiry is capped rather than refused, and the answer says so.
 */
async function createKey({ db }: KeysDeps, caller: NotesCaller, input: z.infer<typeof CreateApiKeyBody>) {
  // Either may be left out (the schema demands one): a role alone brings its permissions.
  const role: Role = input.role ?? smallestRoleFor(input.permissions ?? []);
  const permissions = input.permissions ?? [...ROLE_PERMISSIONS[role]];
  const beyondRole = permissions.filter((permission) => !ROLE_PERMISSIONS[role].includes(permission));
  if (beyondRole.length > 0) {
    throw new AppError('VALIDATION_ERROR', `The ${role} role cannot hold ${beyondRole.join(', ')}`, {
      field: 'permissions',
      reason: `not allowed for role ${role}`,
    });
  }
  const beyondCaller = permissions.filter((permission) => !caller.permissions.includes(permission));
  if (beyondCaller.length > 0 || ROLES.indexOf(role) < ROLES.indexOf(caller.role)) {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'A key cannot be given more than its creator has', {
      required_permission: beyondCaller.join(',') || `role:${role}`,
      current_permission: caller.permissions.join(','),
    });
  }
  const requested = input.expires_at ? new Date(input.expires_at) : null;
  if (requested && requested.getTime() <= Date.now()) {
    throw new AppError('VALIDATION_ERROR', 'expires_at must be in the future', { field: 'expires_at', reason: 'in the past' });
  }
  const { key, hash, prefix } = generateNotesKey();
  // Under the clinic's lock, which a revocation takes too: the cap is counted with no other creation
  // in between, and a creator revoked (with its tree) meanwhile creates nothing that would outlive it.
  const { row, capped } = await db.transaction(async (tx) => {
    await lockClinic(caller.clinicId, tx);
    const creator = await findKeyById(caller.keyId, tx);
    if (creator?.revokedAt) throw new AppError('INVALID_API_KEY', 'This API key has been revoked');
    refuseAtLimit(
      await countActiveKeys(caller.clinicId, tx),
      ACTIVE_KEY_LIMIT,
      'api_keys',
      `A clinic may have at most ${ACTIVE_KEY_LIMIT} active API keys: revoke one first (revoked, disabled and expired keys do not count)`,
    );
    const { expiresAt, capped } = capExpiry(requested, creator?.expiresAt ?? null);
    const inserted = await insertKey(
      { clinicId: caller.clinicId, name: input.name, role, permissions, keyHash: hash, prefix, expiresAt, createdByKeyId: caller.keyId },
      tx,
    );
    return { row: inserted, capped };
  });
  return { ...toKeyRecord(row), expires_at_capped: capped, key };
}

/** The requested expiry, or the creator's when that comes first (no expiry counts as never). */
function capExpiry(requested: Date | null, creatorExpiresAt: Date | null): { expiresAt: Date | null; capped: boolean } {
  if (!creatorExpiresAt) return { expiresAt: requested, capped: false };
  if (requested && requested <= creatorExpiresAt) return { expiresAt: requested, capped: false };
  return { expiresAt: creatorExpiresAt, capped: true };
}

/** A page of the clinic's keys, newest first, and how many it has in all. */
async function listKeys({ db }: KeysDeps, caller: NotesCaller, query: { page?: number; limit?: number }) {
  const page = pageOf(query, ACTIVE_KEY_LIMIT);
  const [rows, total] = await Promise.all([listKeysOfClinic(caller.clinicId, page, db), countKeysOfClinic(caller.clinicId, db)]);
  return { keys: rows.map((row) => toKeyRecord(row)), total };
}

/** The key `id` of the caller's clinic: 404 when it does not exist, 403 when it is another clinic's. */
async function keyOfClinic(db: Db, caller: NotesCaller, id: string): Promise<NotesApiKeyRow> {
  const row = await findKeyById(id, db);
  if (!row) throw new AppError('API_KEY_NOT_FOUND', 'API key not found');
  if (row.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This API key belongs to another clinic');
  return row;
}

/**
 * Revokes the key and every key below it (those it created, those they created, ...), in one
 * transaction, and every process forgets its cached keys as the revocation commits. Says which
 * keys this call revoked: revoking again revokes only what is still active below the key.
 */
async function revoke({ db, authenticator }: KeysDeps, caller: NotesCaller, id: string) {
  await keyOfClinic(db, caller, id);
  const { row, revoked } = await db.transaction(async (tx) => {
    // Serialised with key creation: no key is created below this one once the tree is revoked.
    await lockClinic(caller.clinicId, tx);
    const revokedIds = await revokeKeyTree(id, caller.clinicId, tx);
    if (revokedIds.length > 0) await announceInvalidation(NOTES_KEY_INVALIDATION, tx);
    return { row: await findKeyById(id, tx), revoked: revokedIds };
  });
  if (!row) throw new AppError('API_KEY_NOT_FOUND', 'API key not found');
  // This process at once, without waiting for its own announcement to come back.
  if (revoked.length > 0) authenticator.forget();
  // The key itself first, then the keys below it.
  const ordered = [...revoked].sort((a, b) => Number(b === id) - Number(a === id));
  return { ...toKeyRecord(row), revoked_key_ids: ordered };
}

type Usage = z.infer<typeof UsageEnvelope>['data'];

async function usage(
  { db, usage: recorder }: KeysDeps,
  caller: NotesCaller,
  id: string,
  query: z.infer<typeof UsageQuery>,
): Promise<Usage> {
  // This process's not-yet-written counts first, so a caller sees its own recent requests.
  await recorder.flush();
  const key = await keyOfClinic(db, caller, id);
  const today = new Date().toISOString().slice(0, 10);
  const to = query.to ?? today;
  const from = query.from ?? shiftDay(to, -((query.days ?? 30) - 1));
  if (from > to) throw new AppError('VALIDATION_ERROR', 'from must not be after to', { field: 'from', reason: 'after to' });
  const cells = await usageOfKey(key.id, from, to, db);

  const totals = { requests: 0, by_status: {} as Record<string, number> };
  const days = new Map<string, typeof totals>();
  const endpoints = new Map<string, typeof totals>();
  for (const cell of cells) {
    for (const bucket of [totals, upsert(days, cell.day), upsert(endpoints, cell.endpoint)]) {
      bucket.requests += cell.count;
      bucket.by_status[cell.statusClass] = (bucket.by_status[cell.statusClass] ?? 0) + cell.count;
    }
  }
  return {
    key_id: key.id,
    from,
    to,
    last_used_at: key.lastUsedAt ? toTimestamp(key.lastUsedAt) : null,
    totals,
    days: [...days].map(([date, bucket]) => ({ date, ...bucket })),
    endpoints: [...endpoints].map(([endpoint, bucket]) => ({ endpoint, ...bucket })).sort((a, b) => b.requests - a.requests),
  };
}

function upsert(map: Map<string, { requests: number; by_status: Record<string, number> }>, name: string) {
  let bucket = map.get(name);
  if (!bucket) {
    bucket = { requests: 0, by_status: {} };
    map.set(name, bucket);
  }
  return bucket;
}

function shiftDay(day: string, deltaDays: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + deltaDays);
  return date.toISOString().slice(0, 10);
}

export interface KeysDeps {
  db: Db;
  /** This process's key cache, forgotten at once on a revocation here. */
  authenticator: KeyAuthenticator;
  /** The per-key request counts not yet written, flushed before a usage read. */
  usage: UsageRecorder;
}

/** The key operations bound once to their dependencies: each takes (caller, input). */
export function keysService(deps: KeysDeps) {
  return bindService(deps, { createKey, listKeys, revoke, usage });
}

export type KeysService = ReturnType<typeof keysService>;
