import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { insertAuditLog } from '../audit/audit.repo.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { auditSourceOf } from './audit-source.ts';
import { findContact } from './contacts.repo.ts';
import { anonymiseAuditEntries, anonymiseContact, anonymiseFeedVersions, anonymiseMessages, anonymisePets } from './erasure.repo.ts';

/** What contacts are erased with. */
export interface ContactErasureDeps {
  db: Db;
}

export interface Erasure {
  contactId: string;
  erasedAt: Date;
}

/**
 * POST /external/.../contacts/{id}/erase: the right to erasure (LGPD Art. 18), answered by
 * anonymising, in one transaction, everything the contact's data reached in the CRM: the contact
 * row (deleted and erased), its pets' names, its chat messages, the values in its audit entries and
 * in its earlier change-feed versions (docs/privacy.md). Leads, chats and survey marks stay, with
 * no personal value, so the workspace's pipeline history still adds up. The erasure is audited with
 * no changes (who, when, from where) and appears once in the feed, as `erased`.
 *
 * Idempotent: erasing an erased contact changes and audits nothing and answers the first erasure's
 * time. An id this workspace never had → 404.
 */
async function eraseContact({ db }: ContactErasureDeps, caller: ApiKeyCaller, contactId: string): Promise<Erasure> {
  return db.transaction(async (tx) => {
    const contact = await findContact(caller.workspaceId, contactId, { includeErased: true, lock: true }, tx);
    if (!contact) throw new AppError('CONTACT_NOT_FOUND', 'Contact not found');
    if (contact.erasedAt) return { contactId: contact.id, erasedAt: contact.erasedAt };
    // The earlier versions first: the contact's own UPDATE then writes the `erased` version last.
    await anonymiseFeedVersions(caller.workspaceId, contact.id, tx);
    await anonymiseAuditEntries(caller.workspaceId, contact.id, tx);
    await anonymisePets(contact.id, tx);
    await anonymiseMessages(contact.id, tx);
    const erasedAt = await anonymiseContact(contact.id, tx);
    await insertAuditLog(
      { workspaceId: caller.workspaceId, contactId: contact.id, ...auditSourceOf(caller), action: 'erased', changes: {}, warnings: [] },
      tx,
    );
    return { contactId: contact.id, erasedAt };
  });
}

/** Erasure of contacts by an integration key, bound to the database once. */
export function contactErasureService(deps: ContactErasureDeps) {
  return bindService(deps, { eraseContact });
}

export type ContactErasureService = ReturnType<typeof contactErasureService>;
