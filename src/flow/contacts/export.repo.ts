import type { Db } from '../../platform/db/client.ts';
import { and, asc, eq } from '../../platform/db/drizzle.ts';
import { chatMessages, chats, contactExternalApiAuditLogs, leads, pipelineStages } from '../../platform/db/schema/index.ts';

// What the data subject export reads about one contact, besides the contact and its pets
// (contacts.repo.ts). A contact has a handful of each, so each is read whole, oldest first.

export function leadsOfContact(contactId: string, tx: Db) {
  return tx
    .select({ lead: leads, stageName: pipelineStages.name })
    .from(leads)
    .innerJoin(pipelineStages, eq(pipelineStages.id, leads.stageId))
    .where(eq(leads.contactId, contactId))
    .orderBy(asc(leads.createdAt), asc(leads.id));
}

export function chatsOfContact(contactId: string, tx: Db) {
  return tx.select().from(chats).where(eq(chats.contactId, contactId)).orderBy(asc(chats.createdAt), asc(chats.id));
}

export function messagesOfContact(contactId: string, tx: Db) {
  return tx
    .select({ message: chatMessages })
    .from(chatMessages)
    .innerJoin(chats, eq(chats.id, chatMessages.chatId))
    .where(eq(chats.contactId, contactId))
    .orderBy(asc(chatMessages.createdAt), asc(chatMessages.id));
}

export function auditEntriesOfContact(workspaceId: string, contactId: string, tx: Db) {
  return tx
    .select()
    .from(contactExternalApiAuditLogs)
    .where(and(eq(contactExternalApiAuditLogs.workspaceId, workspaceId), eq(contactExternalApiAuditLogs.contactId, contactId)))
    .orderBy(asc(contactExternalApiAuditLogs.createdAt), asc(contactExternalApiAuditLogs.seq));
}
