import { metaOf } from '../../platform/http/pagination.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import {
  CreatedWebhook,
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryEnvelope,
  DeliveryIdParams,
  DeliveryListEnvelope,
  RotatedSecretEnvelope,
  UpdateWebhookBody,
  WEBHOOK_ENDPOINT_LIMIT,
  WEBHOOK_LIST_LIMIT,
  WebhookEnvelope,
  WebhookIdParams,
  WebhookListEnvelope,
  WebhookListQuery,
} from './webhooks.schemas.ts';
import type { WebhooksService } from './webhooks.service.ts';

const tags = ['Webhooks'];
// Managing where a clinic's notes are sent is an administrator's business.
const config = { access: { notesPermission: 'keys:manage' } as const };

export async function webhookRoutes(app: AppInstance, { webhooks }: { webhooks: WebhooksService }) {
  app.post(
    '/webhooks',
    {
      config,
      schema: {
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint (administrator)',
        description:
          'Events are POSTed as JSON `{type, timestamp, data}` signed per Standard Webhooks (`webhook-id`, ' +
          '`webhook-timestamp`, `webhook-signature`). The signing secret is returned once. The answer is the bare ' +
          'endpoint with its secret, not the `{status, data}` envelope of the other webhook routes. A clinic holds at most ' +
          `${WEBHOOK_ENDPOINT_LIMIT} endpoints, enabled or not: one more → 409 \`LIMIT_REACHED\` (\`details: {limit, resource: "webhooks"}\`).`,
        tags,
        body: CreateWebhookBody,
        response: { 201: CreatedWebhook, ...errorResponses(400, 401, 403, 409, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await webhooks.createWebhook(notesCallerOf(request), request.body));
    },
  );

  app.get(
    '/webhooks',
    {
      config,
      schema: {
        operationId: 'listWebhooks',
        summary: "List your clinic's webhook endpoints",
        description:
          `Newest first. Paged with \`page\` and \`limit\` (1-${WEBHOOK_LIST_LIMIT}, default ${WEBHOOK_LIST_LIMIT}): a clinic holds at ` +
          `most ${WEBHOOK_ENDPOINT_LIMIT} endpoints, so without paging parameters the answer is all of them.`,
        tags,
        querystring: WebhookListQuery,
        response: { 200: WebhookListEnvelope, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { webhooks: data, total } = await webhooks.listWebhooks(notesCallerOf(request), request.query);
      return { status: 'success' as const, data, meta: metaOf(request.query, total) };
    },
  );

  app.get(
    '/webhooks/:id',
    {
      config,
      schema: {
        operationId: 'getWebhook',
        summary: 'A webhook endpoint',
        tags,
        params: WebhookIdParams,
        response: { 200: WebhookEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await webhooks.getWebhook(notesCallerOf(request), request.params.id) }),
  );

  app.patch(
    '/webhooks/:id',
    {
      config,
      schema: {
        operationId: 'updateWebhook',
        summary: 'Change the URL, events, description or enabled state of an endpoint',
        tags,
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookEnvelope, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request) => ({
      status: 'success' as const,
      data: await webhooks.updateWebhook(notesCallerOf(request), request.params.id, request.body),
    }),
  );

  app.delete(
    '/webhooks/:id',
    {
      config,
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete an endpoint and its delivery log; pending deliveries are dropped',
        tags,
        params: WebhookIdParams,
        response: { 200: WebhookEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({
      status: 'success' as const,
      data: await webhooks.removeWebhook(notesCallerOf(request), request.params.id),
    }),
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config,
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the signing secret; the old one keeps signing alongside for 24 h',
        description: 'During the overlap `webhook-signature` carries two signatures: `v1,<new> v1,<old>`.',
        tags,
        params: WebhookIdParams,
        response: { 200: RotatedSecretEnvelope, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await webhooks.rotateSecret(notesCallerOf(request), request.params.id) }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config,
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'Deliveries to this endpoint, newest first (paginated)',
        tags,
        params: WebhookIdParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryListEnvelope, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const { deliveries, total } = await webhooks.deliveriesOf(notesCallerOf(request), request.params.id, request.query);
      return { status: 'success' as const, data: deliveries, meta: metaOf(request.query, total) };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      config,
      schema: {
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivered or failed event again (same webhook-id), as a new delivery',
        tags,
        params: DeliveryIdParams,
        response: { 202: DeliveryEnvelope, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const data = await webhooks.redeliver(notesCallerOf(request), request.params.id, request.params.delivery_id);
      return reply.code(202).send({ status: 'success' as const, data });
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      config,
      schema: {
        operationId: 'testWebhook',
        summary: 'Send a `webhook.test` event to this endpoint',
        tags,
        params: WebhookIdParams,
        response: { 202: DeliveryEnvelope, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const data = await webhooks.sendTest(notesCallerOf(request), request.params.id);
      return reply.code(202).send({ status: 'success' as const, data });
    },
  );
}
