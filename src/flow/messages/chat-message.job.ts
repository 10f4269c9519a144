import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { defineJob } from '../../platform/jobs.ts';
import type { MessagingProvider } from '../../providers/messaging/port.ts';
import { findMessageForDelivery, markMessage } from './messages.repo.ts';

/**
 * Delivers a queued chat message (a survey, a visit summary, a reminder) through the configured
 * messaging provider. Sent in the transaction that queued the message, so it exists only for a
 * committed one; a message already sent is skipped (a retried job never sends twice after success),
 * as is one whose contact was erased since (nothing is left to send, or to send it to), and the
 * answer of a send during which the contact was erased is dropped: its provider id is never written
 * after the erasure. After the last retry the message is marked failed.
 * Retries wait `retryDelaySeconds`, doubling each time up to 10 minutes.
 *
 * The queue keeps the name it had when it carried surveys only: messages queued before an upgrade
 * are still delivered by the new code.
 */
export function chatMessageJob(deps: { db: Db; provider: MessagingProvider; retryDelaySeconds: number }) {
  return defineJob({
    name: 'flow.survey-message',
    payload: z.object({ messageId: z.uuid() }),
    queue: { retryLimit: 5, retryDelay: deps.retryDelaySeconds, retryBackoff: true, retryDelayMax: 600 },
    async handle({ messageId }, { logger, retryCount, retryLimit, signal }) {
      const found = await findMessageForDelivery(messageId, deps.db);
      if (!found || found.message.status === 'sent') return;
      try {
        const { providerMessageId } = await deps.provider.send(
          {
            messageId,
            workspaceId: found.chat.workspaceId,
            chatId: found.chat.id,
            channel: found.chat.channel,
            to: found.phone,
            kind: found.message.kind,
            body: found.message.body,
            template: found.message.template ?? null,
          },
          signal,
        );
        // The contact may have been erased while the provider had the message: then nothing of
        // the answer is written back (markMessage re-reads the contact under its lock).
        const written = await markMessage(
          messageId,
          { status: 'sent', provider: deps.provider.name, providerMessageId, sentAt: new Date() },
          deps.db,
        );
        if (!written) logger.info({ messageId }, 'chat message sent, its contact erased meanwhile: nothing recorded');
      } catch (error) {
        if (retryCount >= retryLimit) await markMessage(messageId, { status: 'failed', provider: deps.provider.name }, deps.db);
        logger.warn({ err: error, messageId }, 'chat message not delivered');
        throw error;
      }
    },
  });
}

export type ChatMessageJob = ReturnType<typeof chatMessageJob>;
