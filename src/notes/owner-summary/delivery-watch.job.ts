import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import { defineJob, type JobDefinition, type JobQueue } from '../../platform/jobs.ts';
import type { CrmLink } from '../crm-link.ts';
import type { Outbox } from '../webhooks/outbox.ts';
import { findDelivery, findSummary, lockDelivery, settleDelivery } from './summary.repo.ts';

/** Rounds of looking before the watch gives up (the CRM's own retries end well within: ~1 h). */
const MAX_ROUNDS = 120;

/** Seconds until the next look: 1, 2, 4 … then every minute. */
export function watchDelaySeconds(round: number): number {
  return Math.min(2 ** round, 60);
}

const Payload = z.object({ deliveryId: z.uuid(), round: z.int().min(0) });
export type DeliveryWatchJob = JobDefinition<z.infer<typeof Payload>>;

/**
 * Follows a sent summary's CRM message (the same database) until the messaging provider has sent it
 * or given up, then records the outcome on the delivery and fires `note.owner_summary_sent` with it,
 * in one transaction. While the message is queued it looks again later (a new job, not a retry: a
 * message still queued is not a failure). A delivery whose note was erased, or whose contact was
 * (the CRM anonymises its messages), is left as it is.
 */
export function deliveryWatchJob(deps: { db: Db; jobs: JobQueue; crmLink: Pick<CrmLink, 'messageStatus'>; outbox: Outbox }) {
  const definition: DeliveryWatchJob = defineJob({
    name: 'notes.owner-summary-delivery',
    payload: Payload,
    async handle({ deliveryId, round }) {
      // The CRM's answer is read before the transaction: the port runs on its own connection, and
      // the embedded database has only one (a query waiting on it inside a transaction never ends).
      const found = await findDelivery(deliveryId, deps.db);
      if (found?.status !== 'queued') return;
      const message = await deps.crmLink.messageStatus(found.messageId);
      if (!message) return;
      await deps.db.transaction(async (tx) => {
        const delivery = await lockDelivery(deliveryId, tx);
        if (delivery?.status !== 'queued') return;
        if (message.status === 'queued') {
          if (round + 1 < MAX_ROUNDS) {
            await deps.jobs.send(definition, { deliveryId, round: round + 1 }, { tx, startAfter: watchDelaySeconds(round + 1) });
          }
          return;
        }
        await settleDelivery(deliveryId, { status: message.status, sentAt: message.sentAt }, tx);
        const summary = await findSummary(delivery.summaryId, tx);
        await deps.outbox.record(tx, {
          clinicId: delivery.clinicId,
          type: 'note.owner_summary_sent',
          data: {
            note_id: delivery.noteId,
            summary_id: delivery.summaryId,
            version: summary?.version ?? null,
            content_sha256: summary?.contentSha256 ?? null,
            message_id: delivery.messageId,
            contact_id: delivery.contactId,
            chat_id: delivery.chatId,
            status: message.status,
            sent_at: message.sentAt ? toTimestamp(message.sentAt) : null,
          },
        });
      });
    },
  });
  return definition;
}
