import type { Db } from '../../platform/db/client.ts';
import { and, eq, isNull } from '../../platform/db/drizzle.ts';
import { chatMessages, chats, contacts } from '../../platform/db/schema/index.ts';

export type ChatMessageRow = typeof chatMessages.$inferSelect;

export async function insertChatMessage(values: typeof chatMessages.$inferInsert, tx: Db): Promise<ChatMessageRow> {
  const [row] = await tx.insert(chatMessages).values(values).returning();
  return row!;
}

/** A queued message with what delivery needs: its chat and the contact's phone; none once the contact is erased. */
export async function findMessageForDelivery(id: string, tx: Db) {
  const [row] = await tx
    .select({ message: chatMessages, chat: chats, phone: contacts.phone })
    .from(chatMessages)
    .innerJoin(chats, eq(chats.id, chatMessages.chatId))
    .innerJoin(contacts, eq(contacts.id, chats.contactId))
    .where(and(eq(chatMessages.id, id), isNull(contacts.erasedAt)));
  return row;
}

export async function markMessage(
  id: string,
  changes: Partial<Pick<ChatMessageRow, 'status' | 'provider' | 'providerMessageId' | 'sentAt'>>,
  tx: Db,
) {
  await tx.update(chatMessages).set(changes).where(eq(chatMessages.id, id));
}
