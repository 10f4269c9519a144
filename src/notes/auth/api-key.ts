import { createHash, randomBytes } from 'node:crypto';
import { type Permission, ROLE_PERMISSIONS, ROLES, type Role } from '../callers.ts';

// Notes API keys: `vnk_` + 32 lowercase hex characters (36 in all), from 16 random bytes.

export const NOTES_KEY_PATTERN = /^vnk_[0-9a-f]{32}$/;
const PREFIX_LENGTH = 8;

/** The least role whose permissions cover `permissions`. */
export function smallestRoleFor(permissions: readonly Permission[]): Role {
  const fitting = [...ROLES].reverse().find((role) => permissions.every((permission) => ROLE_PERMISSIONS[role].includes(permission)));
  return fitting ?? 'administrator';
}

export function generateNotesKey(): { key: string; hash: string; prefix: string } {
  const key = `vnk_${randomBytes(16).toString('hex')}`;
  return { key, hash: hashNotesKey(key), prefix: key.slice(0, PREFIX_LENGTH) };
}

export function hashNotesKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The cache-invalidation topic a revocation announces: every process forgets its cached keys. */
export const NOTES_KEY_INVALIDATION = 'notes_api_keys';
