import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { JobDefinition, JobQueue } from '../../platform/jobs.ts';
import { type DeliveryRow, insertDeliveries, insertEvent } from './deliveries.repo.ts';
import { subscribedEndpoints } from './endpoints.repo.ts';

/** Events an endpoint can subscribe to; `webhook.test` is sent on request only. */
export const WEBHOOK_EVENT_TYPES = ['note.completed', 'note.failed', 'note.signed', 'note.amended', 'note.owner_summary_sent'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const TEST_EVENT_TYPE = 'webhook.test';

export const DeliverPayload = z.object({ deliveryId: z.uuid() });
export type DeliverJob = JobDefinition<z.infer<typeof DeliverPayload>>;

/** A delivery job's send options: its group is the clinic, whose share of the delivery slots it counts against (deliver.job.ts). */
export function deliveryGroup(clinicId: string) {
  return { group: { id: clinicId } };
}

export interface NewEvent {
  clinicId: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * The transactional outbox. `record` runs inside the transaction of the change that causes the
 * event: the event, one delivery per subscribed enabled endpoint and their jobs all commit with
 * that change or not at all.
 */
export class Outbox {
  private readonly jobs: JobQueue;
  private readonly deliver: DeliverJob;

  constructor(jobs: JobQueue, deliver: DeliverJob) {
    this.jobs = jobs;
    this.deliver = deliver;
  }

  /** Nothing is stored when no endpoint listens: an event nobody receives is not kept. */
  async record(tx: Db, event: NewEvent): Promise<DeliveryRow[]> {
    const endpoints = await subscribedEndpoints(event.clinicId, event.type, tx);
    if (endpoints.length === 0) return [];
    return this.recordFor(
      tx,
      event,
      endpoints.map((endpoint) => endpoint.id),
    );
  }

  /** An event for chosen endpoints only (the test event). */
  async recordFor(tx: Db, event: NewEvent, endpointIds: string[]): Promise<DeliveryRow[]> {
    const id = randomUUID();
    const payload = { type: event.type, timestamp: toTimestamp(new Date()), data: event.data };
    await insertEvent({ id, clinicId: event.clinicId, type: event.type, payload }, tx);
    return this.enqueue(tx, event.clinicId, id, endpointIds);
  }

  /**
   * New deliveries of an existing event of `clinicId` (a redelivery), with their jobs, each in the
   * clinic's group: the clinic's share of the delivery slots (deliver.job.ts).
   */
  async enqueue(tx: Db, clinicId: string, eventId: string, endpointIds: string[]): Promise<DeliveryRow[]> {
    const deliveries = await insertDeliveries(eventId, endpointIds, tx);
    for (const delivery of deliveries) await this.jobs.send(this.deliver, { deliveryId: delivery.id }, { tx, ...deliveryGroup(clinicId) });
    return deliveries;
  }
}
