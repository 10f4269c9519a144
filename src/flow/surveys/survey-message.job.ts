import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { defineJob } from '../../platform/jobs.ts';
import type { MessagingProvider } from '../../providers/messaging/port.ts';
import { findMessageForDelivery, markMessage } from './surveys.repo.ts';

/**
 * Delivers a queued survey message through the configured messaging provider. Sent in the trigger's
 * transaction, so it exists only for a committed survey; a message already sent is skipped (a
 * retried job never sends twice after success), as is one whose contact was erased since (nothing is
 * left to send, or to send it to), and the answer of a send during which the contact was erased is
 * dropped: its provider id is never written after the erasure. After the last retry the message is
 * marked failed.
 * Retries wait `retryDelaySeconds`, doubling each time up to 10 minutes.
 */
export function surveyMessageJob(deps: { db: Db; provider: MessagingProvider; retryDelaySeconds: number }) {
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
        if (!written) logger.info({ messageId }, 'survey message sent, its contact erased meanwhile: nothing recorded');
      } catch (error) {
        if (retryCount >= retryLimit) await markMessage(messageId, { status: 'failed', provider: deps.provider.name }, deps.db);
        logger.warn({ err: error, messageId }, 'survey message not delivered');
        throw error;
      }
    },
  });
}
