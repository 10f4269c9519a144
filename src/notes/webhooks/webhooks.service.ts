import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { pageOf } from '../../platform/http/pagination.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import { generateSigningSecret } from '../../platform/webhook-signature.ts';
import type { NotesCaller } from '../callers.ts';
import { refuseAtLimit } from '../store/clinic-limits.ts';
import { lockClinic } from '../store/notes.repo.ts';
import { type DeliveryWithEvent, findDelivery, findEvent, listDeliveries } from './deliveries.repo.ts';
import {
  countEndpoints,
  deleteEndpoint,
  type EndpointChanges,
  type EndpointRow,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from './endpoints.repo.ts';
import { TEST_EVENT_TYPE } from './outbox.ts';
import { checkTargetUrl, TargetRefusedError } from './target-guard.ts';
import type { WebhooksModule } from './webhooks.module.ts';
import {
  type CreateWebhookBody,
  type DeliveriesQuery,
  type UpdateWebhookBody,
  WEBHOOK_ENDPOINT_LIMIT,
  WEBHOOK_LIST_LIMIT,
} from './webhooks.schemas.ts';

/** How long the old secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface WebhooksDeps {
  db: Db;
  webhooks: WebhooksModule;
}

export function toWebhookRecord(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    failing_since: row.failingSince ? toTimestamp(row.failingSince) : null,
    previous_secret_expires_at:
      row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date() ? toTimestamp(row.previousSecretExpiresAt) : null,
    created_at: toTimestamp(row.createdAt),
    updated_at: toTimestamp(row.updatedAt),
  };
}

export function toDeliveryRecord(row: DeliveryWithEvent) {
  return {
    id: row.id,
    event_id: row.eventId,
    event: row.eventType,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    next_attempt_at: row.nextAttemptAt ? toTimestamp(row.nextAttemptAt) : null,
    delivered_at: row.deliveredAt ? toTimestamp(row.deliveredAt) : null,
    created_at: toTimestamp(row.createdAt),
  };
}

function checkedUrl(deps: WebhooksDeps, url: string): string {
  try {
    return checkTargetUrl(url, deps.webhooks.allowPrivateTargets).toString();
  } catch (error) {
    if (error instanceof TargetRefusedError)
      throw new AppError('VALIDATION_ERROR', `url: ${error.message}`, { field: 'url', reason: error.message });
    throw error;
  }
}

async function createWebhook(deps: WebhooksDeps, caller: NotesCaller, input: z.infer<typeof CreateWebhookBody>) {
  const url = checkedUrl(deps, input.url);
  const id = randomUUID();
  const secret = generateSigningSecret();
  const secretEncrypted = deps.webhooks.secrets().seal(secret, id);
  // Counted under the clinic's lock: of two creations at the cap minus one, only one passes.
  const row = await deps.db.transaction(async (tx) => {
    await lockClinic(caller.clinicId, tx);
    refuseAtLimit(
      await countEndpoints(caller.clinicId, tx),
      WEBHOOK_ENDPOINT_LIMIT,
      'webhooks',
      `A clinic may have at most ${WEBHOOK_ENDPOINT_LIMIT} webhook endpoints: delete one first`,
    );
    return insertEndpoint(
      { id, clinicId: caller.clinicId, url, description: input.description ?? null, events: input.events, secretEncrypted },
      tx,
    );
  });
  return { ...toWebhookRecord(row), secret };
}

/** A page of the clinic's endpoints, newest first, and how many it has in all. */
async function listWebhooks(deps: WebhooksDeps, caller: NotesCaller, query: { page?: number; limit?: number }) {
  const page = pageOf(query, WEBHOOK_LIST_LIMIT);
  const [rows, total] = await Promise.all([listEndpoints(caller.clinicId, page, deps.db), countEndpoints(caller.clinicId, deps.db)]);
  return { webhooks: rows.map(toWebhookRecord), total };
}

/** The endpoint `id` of the caller's clinic: 404 when missing, 403 when another clinic's. */
export async function endpointOfClinic(caller: NotesCaller, id: string, db: Db): Promise<EndpointRow> {
  const row = await findEndpoint(id, db);
  if (!row) throw new AppError('WEBHOOK_NOT_FOUND', 'Webhook not found');
  if (row.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This webhook belongs to another clinic');
  return row;
}

async function getWebhook(deps: WebhooksDeps, caller: NotesCaller, id: string) {
  return toWebhookRecord(await endpointOfClinic(caller, id, deps.db));
}

async function updateWebhook(deps: WebhooksDeps, caller: NotesCaller, id: string, input: z.infer<typeof UpdateWebhookBody>) {
  const current = await endpointOfClinic(caller, id, deps.db);
  const changes: EndpointChanges = {};
  if (input.url !== undefined) changes.url = checkedUrl(deps, input.url);
  if (input.events !== undefined) changes.events = input.events;
  if (input.description !== undefined) changes.description = input.description;
  if (input.enabled === false && current.enabled) Object.assign(changes, { enabled: false, disabledReason: 'manual' });
  if (input.enabled === true && !current.enabled) Object.assign(changes, { enabled: true, disabledReason: null, failingSince: null });
  const row = await updateEndpoint(id, changes, deps.db);
  if (!row) throw new AppError('WEBHOOK_NOT_FOUND', 'Webhook not found');
  return toWebhookRecord(row);
}

async function removeWebhook(deps: WebhooksDeps, caller: NotesCaller, id: string) {
  const row = await endpointOfClinic(caller, id, deps.db);
  await deleteEndpoint(id, deps.db);
  return toWebhookRecord(row);
}

/** A new secret; the current one becomes the previous one and keeps signing for 24 h. */
async function rotateSecret(deps: WebhooksDeps, caller: NotesCaller, id: string) {
  await endpointOfClinic(caller, id, deps.db);
  const secret = generateSigningSecret();
  const expiresAt = new Date(Date.now() + ROTATION_OVERLAP_MS);
  const rotated = await rotateEndpointSecret(id, deps.webhooks.secrets().seal(secret, id), expiresAt, deps.db);
  // Deleted meanwhile: a secret that signs nothing is never handed out.
  if (!rotated) throw new AppError('WEBHOOK_NOT_FOUND', 'Webhook not found');
  return { id, secret, previous_secret_expires_at: toTimestamp(expiresAt) };
}

async function deliveriesOf(deps: WebhooksDeps, caller: NotesCaller, id: string, query: z.infer<typeof DeliveriesQuery>) {
  await endpointOfClinic(caller, id, deps.db);
  const { rows, total } = await listDeliveries(id, query.page, query.limit, deps.db);
  return { deliveries: rows.map(toDeliveryRecord), total };
}

function requireEnabled(endpoint: EndpointRow) {
  if (!endpoint.enabled) {
    throw new AppError('WEBHOOK_DISABLED', 'This webhook is disabled; enable it first (PATCH enabled: true)', {
      disabled_reason: endpoint.disabledReason,
    });
  }
}

/** The same event (same `webhook-id`) sent again as a new delivery, with a fresh schedule. */
async function redeliver(deps: WebhooksDeps, caller: NotesCaller, id: string, deliveryId: string) {
  const endpoint = await endpointOfClinic(caller, id, deps.db);
  const delivery = await findDelivery(deliveryId, deps.db);
  if (!delivery || delivery.endpointId !== endpoint.id) throw new AppError('WEBHOOK_DELIVERY_NOT_FOUND', 'Delivery not found');
  requireEnabled(endpoint);
  const event = await findEvent(delivery.eventId, deps.db);
  if (!event) throw new AppError('WEBHOOK_DELIVERY_NOT_FOUND', 'Delivery not found');
  const [created] = await deps.db.transaction((tx) => deps.webhooks.outbox.enqueue(tx, endpoint.clinicId, event.id, [endpoint.id]));
  if (!created) throw new Error('redelivery created no row');
  return toDeliveryRecord({ ...created, eventType: event.type });
}

/** A `webhook.test` event to this endpoint only, whatever it subscribed to. */
async function sendTest(deps: WebhooksDeps, caller: NotesCaller, id: string) {
  const endpoint = await endpointOfClinic(caller, id, deps.db);
  requireEnabled(endpoint);
  const data = { webhook_id: endpoint.id, message: 'This is a test event from vetflow' };
  const [created] = await deps.db.transaction((tx) =>
    deps.webhooks.outbox.recordFor(tx, { clinicId: caller.clinicId, type: TEST_EVENT_TYPE, data }, [endpoint.id]),
  );
  if (!created) throw new Error('test event created no delivery');
  return toDeliveryRecord({ ...created, eventType: TEST_EVENT_TYPE });
}

/** The webhook operations bound once to their dependencies: each takes (caller, input). */
export function webhooksService(deps: WebhooksDeps) {
  return bindService(deps, {
    createWebhook,
    listWebhooks,
    getWebhook,
    updateWebhook,
    removeWebhook,
    rotateSecret,
    deliveriesOf,
    redeliver,
    sendTest,
  });
}

export type WebhooksService = ReturnType<typeof webhooksService>;
