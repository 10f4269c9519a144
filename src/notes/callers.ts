// Who is asking, passed explicitly to every Notes service (as flow/callers.ts does for the CRM).

import type { RequestOrigin } from '../platform/http/request-origin.ts';

// What a Notes key may do: a role is a named set of permissions.
export const ROLES = ['administrator', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = ['notes:read', 'notes:write', 'keys:manage'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  viewer: ['notes:read'],
  editor: ['notes:read', 'notes:write'],
  administrator: ['notes:read', 'notes:write', 'keys:manage'],
};

/** Who is calling the Notes API: one key of one clinic. */
export interface NotesCaller {
  readonly keyId: string;
  readonly clinicId: string;
  readonly role: Role;
  readonly permissions: readonly Permission[];
  /** The request being served (its X-Request-Id and address), for the note's history; absent outside a request. */
  readonly request?: RequestOrigin;
}
