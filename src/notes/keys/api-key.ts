import { createHash, randomBytes } from 'node:crypto';

// Notes API keys: `vnk_` + 32 lowercase hex characters (36 in all), from 16 random bytes.

export const NOTES_KEY_PATTERN = /^vnk_[0-9a-f]{32}$/;
const PREFIX_LENGTH = 8;

export const ROLES = ['administrator', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = ['notes:read', 'notes:write', 'keys:manage'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  viewer: ['notes:read'],
  editor: ['notes:read', 'notes:write'],
  administrator: ['notes:read', 'notes:write', 'keys:manage'],
};

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
