import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { toProjection } from './contact.schemas.ts';
import type { ContactExportDocument } from './contact-export.schemas.ts';
import { findContact, listPets } from './contacts.repo.ts';
import { auditEntriesOfContact, chatsOfContact, leadsOfContact, messagesOfContact } from './export.repo.ts';

/** What a contact is exported with. */
export interface ContactExportDeps {
  db: Db;
}

const time = (value: Date | null) => (value ? toTimestamp(value) : null);

/**
 * GET /external/.../contacts/{id}/export: everything held about the contact, read in one
 * transaction (one consistent picture). A soft-deleted contact is exported too (its data is still
 * held); an erased or unknown one → 404.
 */
async function exportContact({ db }: ContactExportDeps, caller: ApiKeyCaller, contactId: string): Promise<ContactExportDocument> {
  return db.transaction(async (tx) => {
    const contact = await findContact(caller.workspaceId, contactId, { includeDeleted: true }, tx);
    if (!contact) throw new AppError('CONTACT_NOT_FOUND', 'Contact not found');
    // One after the other: a transaction is one connection (and the embedded database has one).
    const pets = await listPets(contact.id, tx);
    const leadRows = await leadsOfContact(contact.id, tx);
    const chatRows = await chatsOfContact(contact.id, tx);
    const messages = (await messagesOfContact(contact.id, tx)).map(({ message }) => message);
    const auditRows = await auditEntriesOfContact(caller.workspaceId, contact.id, tx);
    return {
      contact: { ...toProjection(contact), legacy_id: contact.legacyId, deleted_at: time(contact.deletedAt) },
      pets: pets.map((pet) => ({
        id: pet.id,
        name: pet.name,
        species: pet.species,
        breed: pet.breed,
        birth_date: pet.birthDate,
        created_at: toTimestamp(pet.createdAt),
      })),
      leads: leadRows.map(({ lead, stageName }) => ({
        id: lead.id,
        stage_id: lead.stageId,
        stage_name: stageName,
        status: lead.status,
        survey_sent_at: time(lead.surveySentAt),
        finished_at: time(lead.finishedAt),
        created_at: toTimestamp(lead.createdAt),
        updated_at: toTimestamp(lead.updatedAt),
      })),
      chats: chatRows.map((chat) => ({
        id: chat.id,
        channel: chat.channel,
        created_at: toTimestamp(chat.createdAt),
        messages: messages
          .filter((message) => message.chatId === chat.id)
          .map((message) => ({
            id: message.id,
            kind: message.kind,
            body: message.body,
            reason: message.reason,
            status: message.status,
            provider: message.provider,
            provider_message_id: message.providerMessageId,
            sent_at: time(message.sentAt),
            created_at: toTimestamp(message.createdAt),
          })),
      })),
      surveys: messages
        .filter((message) => message.kind === 'satisfaction_survey')
        .map((message) => ({
          message_id: message.id,
          lead_id: message.leadId,
          chat_id: message.chatId,
          reason: message.reason,
          status: message.status,
          sent_at: time(message.sentAt),
          created_at: toTimestamp(message.createdAt),
        })),
      audit_logs: auditRows.map((row) => ({
        id: row.id,
        action: row.action,
        api_key_prefix: row.apiKeyPrefix,
        changes: row.changes,
        warnings: row.warnings,
        request_id: row.requestId,
        ip: row.ip,
        created_at: toTimestamp(row.createdAt),
      })),
      exported_at: toTimestamp(new Date()),
    };
  });
}

/** The data subject export, bound to the database once. */
export function contactExportService(deps: ContactExportDeps) {
  return bindService(deps, { exportContact });
}

export type ContactExportService = ReturnType<typeof contactExportService>;
