import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { assertAdministrator } from '../access.ts';
import { listAuditLogs } from '../audit/audit.repo.ts';
import type { CrmCaller } from '../callers.ts';
import { findContact } from '../contacts/contacts.repo.ts';

/** What a contact's audit trail is read with. */
export interface AuditTrailDeps {
  db: Db;
}

/**
 * Administrators read a contact's trail, deleted and erased contacts included (that is when it
 * matters most; an erased contact's trail holds no personal value, docs/privacy.md).
 */
async function readTrail(
  { db }: AuditTrailDeps,
  caller: CrmCaller,
  workspaceId: string,
  contactId: string,
  page: { limit: number; offset: number },
) {
  assertAdministrator(caller, workspaceId, 'read audit logs');
  if (!(await findContact(workspaceId, contactId, { includeDeleted: true, includeErased: true }, db)))
    throw new AppError('CONTACT_NOT_FOUND', 'Contact not found');
  return listAuditLogs(workspaceId, contactId, page, db);
}

/** A contact's audit trail, bound to the database once. */
export function auditService(deps: AuditTrailDeps) {
  return bindService(deps, { readTrail });
}

export type AuditService = ReturnType<typeof auditService>;
