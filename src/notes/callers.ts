import type { Permission, Role } from './keys/api-key.ts';

// Who is asking, passed explicitly to every Notes service (as flow/callers.ts does for the CRM).

/** Who is calling the Notes API: one key of one clinic. */
export interface NotesCaller {
  readonly keyId: string;
  readonly clinicId: string;
  readonly role: Role;
  readonly permissions: readonly Permission[];
  /** The request being served (its X-Request-Id), for the note's history; absent outside a request. */
  readonly requestId?: string;
}
