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
  WebhookEnvelope,
  WebhookIdParams,
  WebhookListEnvelope,
} from './webhooks.schemas.ts';
import { type WebhooksDeps, webhooksService } from './webhooks.service.ts';

const security = [{ NotesApiKey: [] }];
const tags = ['Webhooks'];
// Managing where a clinic's notes are sent is an administrator's business.
const config = { notesAccess: 'keys:manage' as const };

export async function webhookRoutes(app: AppInstance, deps: WebhooksDeps) {
  const webhooks = webhooksService(deps);
  app.post(
    '/webhooks',
    {
      config,
      schema: {
        summary: 'Register a webhook endpoint (administrator)',
        description:
          'Events are POSTed as JSON `{type, timestamp, data}` signed per Standard Webhooks (`webhook-id`, ' +
          '`webhook-timestamp`, `webhook-signature`). The signing secret is returned once. The answer is the bare ' +
          'endpoint with its secret (DECISIONS §4), not the `{status, data}` envelope of the other webhook routes.',
        tags,
        security,
        body: CreateWebhookBody,
        response: { 201: CreatedWebhook, ...errorResponses(400, 401, 403, 422, 429) },
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
        summary: "List your clinic's webhook endpoints",
        tags,
        security,
        response: { 200: WebhookListEnvelope, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => {
      const data = await webhooks.listWebhooks(notesCallerOf(request));
      return { status: 'success' as const, data, meta: { total: data.length } };
    },
  );

  app.get(
    '/webhooks/:id',
    {
      config,
      schema: {
        summary: 'A webhook endpoint',
        tags,
        security,
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
        summary: 'Change the URL, events, description or enabled state of an endpoint',
        tags,
        security,
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
        summary: 'Delete an endpoint and its delivery log; pending deliveries are dropped',
        tags,
        security,
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
        summary: 'Replace the signing secret; the old one keeps signing alongside for 24 h',
        description: 'During the overlap `webhook-signature` carries two signatures: `v1,<new> v1,<old>`.',
        tags,
        security,
        params: WebhookIdParams,
        response: { 200: RotatedSecretEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await webhooks.rotateSecret(notesCallerOf(request), request.params.id) }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config,
      schema: {
        summary: 'Deliveries to this endpoint, newest first (paginated)',
        tags,
        security,
        params: WebhookIdParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryListEnvelope, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request) => ({
      status: 'success' as const,
      ...(await webhooks.deliveriesOf(notesCallerOf(request), request.params.id, request.query)),
    }),
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      config,
      schema: {
        summary: 'Send a delivered or failed event again (same webhook-id), as a new delivery',
        tags,
        security,
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
        summary: 'Send a `webhook.test` event to this endpoint',
        tags,
        security,
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
