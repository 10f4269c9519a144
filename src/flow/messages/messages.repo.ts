import type { Db } from '../../platform/db/client.ts';
import { and, eq, exists, isNull } from '../../platform/db/drizzle.ts';
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

/**
 * Records how a message's delivery went, in one statement that first takes a share lock on its
 * contact and re-reads it: a contact erased meanwhile (its erasure holds that row's lock while it
 * anonymises the messages) gets nothing written back (no provider id, no status), and an erasure
 * that starts after waits for this write and then anonymises it. Returns false when nothing was
 * written because the contact is erased.
 */
export async function markMessage(
  id: string,
  changes: Partial<Pick<ChatMessageRow, 'status' | 'provider' | 'providerMessageId' | 'sentAt'>>,
  tx: Db,
): Promise<boolean> {
  const live = tx.$with('live').as(
    tx
      .select({ id: contacts.id })
      .from(chatMessages)
      .innerJoin(chats, eq(chats.id, chatMessages.chatId))
      .innerJoin(contacts, eq(contacts.id, chats.contactId))
      .where(and(eq(chatMessages.id, id), isNull(contacts.erasedAt)))
      .for('share', { of: contacts }),
  );
  const rows = await tx
    .with(live)
    .update(chatMessages)
    .set(changes)
    .where(and(eq(chatMessages.id, id), exists(tx.select().from(live))))
    .returning({ id: chatMessages.id });
  return rows.length > 0;
}

/** A message's delivery state (what the Notes API's delivery watch follows); undefined when there is none or its contact was erased. */
export async function findMessageStatus(id: string, db: Db): Promise<Pick<ChatMessageRow, 'status' | 'sentAt'> | undefined> {
  const [row] = await db
    .select({ status: chatMessages.status, sentAt: chatMessages.sentAt })
    .from(chatMessages)
    .innerJoin(chats, eq(chats.id, chatMessages.chatId))
    .innerJoin(contacts, eq(contacts.id, chats.contactId))
    .where(and(eq(chatMessages.id, id), isNull(contacts.erasedAt)));
  return row;
}
