import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import type { AuditChanges } from '../../platform/db/schema/index.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import { type AuditEntry, insertAuditLog } from '../audit/audit.repo.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { auditSourceOf } from './audit-source.ts';
import { type ContactRow, findContact, updateContact } from './contacts.repo.ts';

/** What an integration key reads and deletes contacts with. */
export interface ExternalContactsDeps {
  db: Db;
}

/** GET /external/.../contacts/{id}: a deleted contact is as absent as a missing one. */
async function getContact({ db }: ExternalContactsDeps, caller: ApiKeyCaller, contactId: string): Promise<ContactRow> {
  const contact = await findContact(caller.workspaceId, contactId, {}, db);
  if (!contact) throw new AppError('CONTACT_NOT_FOUND', 'Contact not found');
  return contact;
}

/**
 * DELETE /external/.../contacts/{id}: soft delete, idempotent. Deleting an already deleted contact
 * succeeds again (and is audited again, with no changes: every successful DELETE leaves a row);
 * an id this workspace never had → 404.
 */
async function deleteContact({ db }: ExternalContactsDeps, caller: ApiKeyCaller, contactId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const contact = await findContact(caller.workspaceId, contactId, { includeDeleted: true, lock: true }, tx);
    if (!contact) throw new AppError('CONTACT_NOT_FOUND', 'Contact not found');
    let changes = {};
    if (!contact.deletedAt) {
      const deleted = await updateContact(contact.id, { deletedAt: new Date() }, tx);
      changes = { deleted_at: { before: null, after: toTimestamp(deleted.deletedAt!) } };
    }
    await insertAuditLog({ ...deletionAuditEntry(caller, changes), contactId: contact.id }, tx);
  });
}

/** The audit row of a successful external DELETE, but its contact. (Upserts write theirs in `vetflow_upsert_contact`.) */
function deletionAuditEntry(caller: ApiKeyCaller, changes: AuditChanges): AuditEntry {
  return { workspaceId: caller.workspaceId, ...auditSourceOf(caller), action: 'deleted', changes, warnings: [] };
}

/** Reads and deletes of contacts by an integration key, bound to the database once. */
export function externalContactsService(deps: ExternalContactsDeps) {
  return bindService(deps, { getContact, deleteContact });
}

export type ExternalContactsService = ReturnType<typeof externalContactsService>;
