import { createHash } from 'node:crypto';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { idempotency, type Replayable } from '../../platform/db/idempotency.ts';
import { AppError } from '../../platform/errors.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { findContact } from '../contacts/contacts.repo.ts';
import { insertChat, latestChat } from '../crm/pipeline.repo.ts';
import type { ChatMessageJob } from './chat-message.job.ts';
import { type QueuedMessageBody, type SendMessage, toQueuedMessage } from './message.schemas.ts';
import { insertChatMessage } from './messages.repo.ts';

export interface MessagesDeps {
  db: Db;
  jobs: JobQueue;
  job: ChatMessageJob;
}

/** The Idempotency-Key scope: a key used for a message is its own, whatever else it served. */
export const SEND_SCOPE = 'POST /external/contacts/{id}/messages';

/**
 * POST /external/contacts/{contact_id}/messages: the message goes to the contact's newest chat
 * (a WhatsApp chat is opened when it has none) and is queued for the delivery job, all in one
 * transaction that also records the Idempotency-Key's answer: the same key sends nothing twice.
 * The contact is read under a share lock, so an erasure either ran first (404) or waits for this
 * commit and then anonymises the message with the rest of the chat.
 */
async function sendMessage(
  deps: MessagesDeps,
  caller: Pick<ApiKeyCaller, 'workspaceId'>,
  contactId: string,
  input: SendMessage,
  idempotencyKey: string | undefined,
): Promise<Replayable<QueuedMessageBody>> {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([contactId, input.kind, input.body, input.template ?? null]))
    .digest('hex');
  return idempotency(deps.db)<QueuedMessageBody>(
    { owner: caller.workspaceId, scope: SEND_SCOPE, key: idempotencyKey, fingerprint, reusedFor: 'a different message' },
    async (tx) => {
      const contact = await findContact(caller.workspaceId, contactId, { lock: 'share' }, tx);
      if (!contact) throw new AppError('CONTACT_NOT_FOUND', 'No active contact with this id in the workspace');
      const chat = (await latestChat(contact.id, tx)) ?? (await insertChat({ workspaceId: caller.workspaceId, contactId: contact.id }, tx));
      const message = await insertChatMessage(
        { chatId: chat.id, kind: input.kind, body: input.body, template: input.template ?? null },
        tx,
      );
      await deps.jobs.send(deps.job, { messageId: message.id }, { tx });
      return { statusCode: 202, body: toQueuedMessage(message, contact.id) };
    },
  );
}

/** Messages to contacts, bound to the database and the delivery job once. */
export function messagesService(deps: MessagesDeps) {
  return bindService(deps, { sendMessage });
}

export type MessagesService = ReturnType<typeof messagesService>;
