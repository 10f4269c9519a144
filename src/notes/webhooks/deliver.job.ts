import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { defineJob, type JobQueue } from '../../platform/jobs.ts';
import type { Logger } from '../../platform/logger.ts';
import { webhookAttempts, webhookDeliveries, webhookEndpointsDisabled, webhookLag } from '../../platform/metrics/webhooks.ts';
import { signedHeaders } from '../../platform/webhook-signature.ts';
import { claimDelivery, type DeliveryOutcome, type DeliveryRow, findEvent, recordOutcome } from './deliveries.repo.ts';
import { type EndpointRow, findEndpoint, markEndpointFailing, markEndpointHealthy } from './endpoints.repo.ts';
import { type DeliverJob, DeliverPayload, deliveryGroup } from './outbox.ts';
import { type SecretBox, SecretUnreadableError } from './secrets.ts';
import { postJson, SendTimeoutError, withDeadline } from './sender.ts';
import { type Resolver, resolveTarget, TargetRefusedError } from './target-guard.ts';

export const DELIVER_QUEUE = 'notes.webhook-deliver';

/** Attempts one worker process runs at once. */
export const DELIVERY_SLOTS = 8;
/**
 * Of those, how many one clinic may hold: its further deliveries wait in the queue (not fetched,
 * no attempt counted) while other clinics' are taken, so a clinic whose receivers hold every
 * request open until the timeout slows only its own deliveries (docs/webhooks.md, "Fair shares").
 */
export const CLINIC_DELIVERY_SLOTS = 2;

export interface DeliverDeps {
  db: Db;
  jobs: JobQueue;
  secrets: () => SecretBox;
  /** Delays before each retry, in seconds; their count is the number of retries. */
  retrySchedule: readonly number[];
  timeoutMs: number;
  allowPrivateTargets: boolean;
  disableAfterSeconds: number;
  resolver?: Resolver;
}

/**
 * One attempt per job. Retries are not pg-boss retries: a failed attempt that may succeed later
 * (timeout, network, 429, 5xx) schedules a new job for the next attempt in the same transaction
 * that records the failure, so the schedule is ours (configurable, ~24 h) and the delivery log
 * always says when the next attempt is due. pg-boss's own retries only cover a crashed worker.
 */
export function deliverJob(deps: DeliverDeps): DeliverJob {
  const claimSeconds = claimSecondsFor(deps);
  const job: DeliverJob = defineJob({
    name: DELIVER_QUEUE,
    payload: DeliverPayload,
    queue: { retryLimit: 3, retryDelay: 5, retryBackoff: true, retryDelayMax: 300, expireInSeconds: claimSeconds + 15 },
    work: { localConcurrency: DELIVERY_SLOTS, localGroupConcurrency: CLINIC_DELIVERY_SLOTS },
    handle: ({ deliveryId }, { logger }) => attemptDelivery(deps, job, deliveryId, logger),
  });
  return job;
}

/** How long an attempt holds its delivery: the HTTP timeout plus room for the database work. */
function claimSecondsFor(deps: DeliverDeps): number {
  return Math.ceil(deps.timeoutMs / 1000) + 5;
}

export async function attemptDelivery(deps: DeliverDeps, job: DeliverJob, deliveryId: string, logger: Logger): Promise<void> {
  const delivery = await claimDelivery(deliveryId, claimSecondsFor(deps), deps.db);
  if (!delivery) return; // delivered, failed, deleted, or another worker holds it
  const endpoint = await findEndpoint(delivery.endpointId, deps.db);
  const event = await findEvent(delivery.eventId, deps.db);
  if (!endpoint || !event) return;
  if (!endpoint.enabled) {
    await recordOutcome(delivery.id, { status: 'failed', statusCode: null, error: 'endpoint disabled' }, deps.db);
    webhookDeliveries.inc({ outcome: 'failed' });
    return;
  }
  const result = await send(deps, endpoint, event.id, JSON.stringify(event.payload));
  const outcome = decide(deps, delivery, result);
  await deps.db.transaction(async (tx) => {
    await recordOutcome(delivery.id, outcome, tx);
    if (outcome.status === 'pending') {
      await deps.jobs.send(
        job,
        { deliveryId: delivery.id },
        { tx, startAfter: outcome.nextAttemptAt, ...deliveryGroup(endpoint.clinicId) },
      );
    }
  });
  countAttempt(outcome, event.createdAt);
  if (outcome.status === 'delivered') {
    await markEndpointHealthy(endpoint.id, deps.db);
  } else if (await markEndpointFailing(endpoint.id, deps.disableAfterSeconds, deps.db)) {
    webhookEndpointsDisabled.inc();
    logger.warn({ endpointId: endpoint.id }, 'webhook endpoint disabled after failing too long');
  }
  logger.info(
    {
      deliveryId,
      endpointId: endpoint.id,
      eventId: event.id,
      attempt: delivery.attempts,
      outcome: outcome.status,
      statusCode: outcome.statusCode,
    },
    'webhook delivery attempt',
  );
}

function countAttempt(outcome: DeliveryOutcome, eventCreatedAt: Date): void {
  webhookAttempts.inc({ result: outcome.status === 'pending' ? 'retry' : outcome.status });
  if (outcome.status === 'pending') return;
  webhookDeliveries.inc({ outcome: outcome.status });
  if (outcome.status === 'delivered') webhookLag.observe(Math.max(0, Date.now() - eventCreatedAt.getTime()) / 1000);
}

type SendOutcome = { statusCode: number; bodyStart: string } | { error: string; retryable: boolean };

async function send(deps: DeliverDeps, endpoint: EndpointRow, eventId: string, body: string): Promise<SendOutcome> {
  let secrets: string[];
  try {
    secrets = activeSecrets(deps.secrets(), endpoint);
  } catch (error) {
    if (error instanceof SecretUnreadableError) return { error: error.message, retryable: false };
    // The operator may still set the key: retried on the schedule, failed when it runs out.
    if (error instanceof AppError && error.code === 'WEBHOOK_KEY_MISSING')
      return { error: 'WEBHOOK_KEY_MISSING: WEBHOOK_SECRET_KEY is not set', retryable: true };
    throw error;
  }
  const headers = signedHeaders(secrets, eventId, body);
  try {
    // One deadline for the whole exchange, DNS lookup included.
    const startedAt = Date.now();
    const target = await withDeadline(resolveTarget(endpoint.url, deps.allowPrivateTargets, deps.resolver), deps.timeoutMs, 'DNS lookup');
    return await postJson(target, headers, body, deps.timeoutMs, startedAt);
  } catch (error) {
    if (error instanceof TargetRefusedError) return { error: `target refused: ${error.message}`, retryable: false };
    if (error instanceof SendTimeoutError) return { error: `timeout: ${error.message}`, retryable: true };
    const code = (error as NodeJS.ErrnoException).code;
    return { error: `network error: ${code ?? (error as Error).message}`, retryable: true };
  }
}

/** The current secret, plus the previous one while its overlap after a rotation lasts. */
export function activeSecrets(box: SecretBox, endpoint: EndpointRow, now = new Date()): string[] {
  const secrets = [box.open(endpoint.secretEncrypted, endpoint.id)];
  if (endpoint.previousSecretEncrypted && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(box.open(endpoint.previousSecretEncrypted, endpoint.id));
  }
  return secrets;
}

/** 2xx delivered; timeouts, network errors, 429 and 5xx retried while the schedule lasts; the rest final. */
function decide(deps: DeliverDeps, delivery: DeliveryRow, result: SendOutcome): DeliveryOutcome {
  let retryable: boolean;
  let statusCode: number | null = null;
  let error: string;
  if ('statusCode' in result) {
    statusCode = result.statusCode;
    if (statusCode >= 200 && statusCode < 300) return { status: 'delivered', statusCode };
    retryable = statusCode === 429 || statusCode >= 500;
    error = `HTTP ${statusCode}${result.bodyStart ? `: ${result.bodyStart.slice(0, 200)}` : ''}`;
  } else {
    retryable = result.retryable;
    error = result.error;
  }
  const delay = deps.retrySchedule[delivery.attempts - 1];
  if (!retryable || delay === undefined) return { status: 'failed', statusCode, error };
  // ±20 % jitter: receivers recovering from an outage are not hit by every sender at once.
  const jittered = delay * (0.8 + Math.random() * 0.4);
  return { status: 'pending', statusCode, error, nextAttemptAt: new Date(Date.now() + jittered * 1000) };
}
