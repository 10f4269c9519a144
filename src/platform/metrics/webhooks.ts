import { counter, histogram, SLOW_BUCKETS } from './registry.ts';

// Webhook deliveries. The backlog is the `notes.webhook-deliver` queue's depth (jobs.ts).

export const webhookAttempts = counter('vetflow_webhook_attempts_total', 'Webhook delivery attempts, by result.', ['result']);
export const webhookDeliveries = counter(
  'vetflow_webhook_deliveries_total',
  'Webhook deliveries that ended: delivered or failed for good.',
  ['outcome'],
);
export const webhookLag = histogram(
  'vetflow_webhook_delivery_lag_seconds',
  'From the event to its successful delivery (retries included).',
  [0.1, 0.5, ...SLOW_BUCKETS, 21_600, 86_400],
);
export const webhookEndpointsDisabled = counter(
  'vetflow_webhook_endpoints_disabled_total',
  'Webhook endpoints disabled automatically after failing too long.',
);
