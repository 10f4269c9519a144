import { z } from 'zod';
import { PageMetaSchema, pageQuery, TimestampSchema } from '../../platform/http/schemas.ts';
import { WEBHOOK_EVENT_TYPES } from './outbox.ts';

const Events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .refine((list) => new Set(list).size === list.length, 'events must not repeat')
  .meta({ description: 'Event types to receive: `note.completed`, `note.failed`, `note.signed`, `note.amended`' });
const Url = z.string().trim().min(1).max(2048).meta({ description: 'https URL (http and private hosts only when the server allows them)' });

export const CreateWebhookBody = z
  .object({ url: Url, events: Events, description: z.string().trim().max(500).optional() })
  .strict()
  .meta({ id: 'CreateWebhookRequest' });

export const UpdateWebhookBody = z
  .object({
    url: Url.optional(),
    events: Events.optional(),
    enabled: z.boolean().optional().meta({ description: 'true re-enables an endpoint disabled by hand or for failing' }),
    description: z.string().trim().max(500).nullable().optional(),
  })
  .strict()
  .meta({ id: 'UpdateWebhookRequest' });

export const WebhookRecord = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z.enum(['manual', 'failing']).nullable().meta({ description: '`failing`: every delivery failed for 3 days' }),
    failing_since: TimestampSchema.nullable().meta({ description: 'Start of the current run of failed attempts' }),
    previous_secret_expires_at: TimestampSchema.nullable().meta({ description: 'Until then the old secret also signs' }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: 'Webhook' });

const SecretSchema = z
  .string()
  .meta({ description: 'Signing secret `whsec_...`: shown once, never again', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });

// Bare, as documented in docs/webhooks.md (`{id, url, events, enabled, secret}`); reads are enveloped.
export const CreatedWebhook = WebhookRecord.extend({ secret: SecretSchema }).meta({ id: 'CreatedWebhook' });
export const WebhookEnvelope = z.object({ status: z.literal('success'), data: WebhookRecord }).meta({ id: 'WebhookResponse' });
export const WebhookListEnvelope = z
  .object({ status: z.literal('success'), data: z.array(WebhookRecord), meta: PageMetaSchema })
  .meta({ id: 'WebhookListResponse' });

/** How many endpoints (enabled or not) a clinic may hold. */
export const WEBHOOK_ENDPOINT_LIMIT = 20;
/** The list's default and largest page: more than the cap, so a client sending no paging parameters gets every endpoint. */
export const WEBHOOK_LIST_LIMIT = 100;
export const WebhookListQuery = pageQuery(WEBHOOK_LIST_LIMIT, WEBHOOK_LIST_LIMIT);
export const RotatedSecretEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.object({ id: z.uuid(), secret: SecretSchema, previous_secret_expires_at: TimestampSchema }),
  })
  .meta({ id: 'RotatedWebhookSecretResponse' });

export const DeliveryRecord = z
  .object({
    id: z.uuid(),
    event_id: z.uuid().meta({ description: 'The `webhook-id` header: the same on every attempt and redelivery' }),
    event: z.string().meta({ example: 'note.completed' }),
    status: z.enum(['pending', 'delivering', 'delivered', 'failed']),
    attempts: z.int(),
    last_status_code: z.int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: TimestampSchema.nullable(),
    delivered_at: TimestampSchema.nullable(),
    created_at: TimestampSchema,
  })
  .meta({ id: 'WebhookDelivery' });

export const DeliveryEnvelope = z.object({ status: z.literal('success'), data: DeliveryRecord }).meta({ id: 'WebhookDeliveryResponse' });
export const DeliveryListEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.array(DeliveryRecord),
    meta: z.object({ total: z.int(), page: z.int(), limit: z.int(), total_pages: z.int() }),
  })
  .meta({ id: 'WebhookDeliveryListResponse' });

export const WebhookIdParams = z.object({ id: z.uuid() });
export const DeliveryIdParams = z.object({ id: z.uuid(), delivery_id: z.uuid() });
export const DeliveriesQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
