import { metaOf } from '../../platform/http/pagination.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import {
  ACTIVE_KEY_LIMIT,
  ApiKeyEnvelope,
  ApiKeyListEnvelope,
  ApiKeyListQuery,
  CreateApiKeyBody,
  CreatedApiKeyEnvelope,
  KeyIdParams,
  UsageEnvelope,
  UsageQuery,
} from './keys.schemas.ts';
import type { KeysService } from './keys.service.ts';

const tags = ['API keys'];

export async function notesKeyRoutes(app: AppInstance, { keys }: { keys: KeysService }) {
  app.post(
    '/api-keys',
    {
      config: { access: { notesPermission: 'keys:manage' } },
      schema: {
        operationId: 'createApiKey',
        summary: 'Create an API key for your clinic (administrator)',
        description:
          'The key is returned once. Give `permissions`, a `role` (which brings its permissions: `{"name": "Recepção", ' +
          '"role": "viewer"}` is a `notes:read` key), or both; neither → 422. A key never gets a permission or role its creator lacks, nor an expiry later than ' +
          "its creator's: a later or missing `expires_at` is capped to the creator's and `expires_at_capped` is true. " +
          `A clinic holds at most ${ACTIVE_KEY_LIMIT} active keys (revoked, disabled and expired ones do not count): one more → ` +
          '409 `LIMIT_REACHED` (`details: {limit, resource: "api_keys"}`).',
        tags,
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKeyEnvelope, ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const created = await keys.createKey(notesCallerOf(request), request.body);
      return reply.code(201).send({ status: 'success' as const, data: created });
    },
  );

  app.get(
    '/api-keys',
    {
      config: { access: { notesPermission: 'keys:manage' } },
      schema: {
        operationId: 'listApiKeys',
        summary: "List your clinic's API keys (never the keys themselves)",
        description:
          `Newest first, every state (active, expired, revoked, disabled). Paged with \`page\` and \`limit\` (1-${ACTIVE_KEY_LIMIT}, ` +
          `default ${ACTIVE_KEY_LIMIT}, the most active keys a clinic may hold); \`meta.total\` counts them all. A clinic whose ` +
          'keys, revoked and expired ones included, outnumber a page reads the older ones on the next pages.',
        tags,
        querystring: ApiKeyListQuery,
        response: { 200: ApiKeyListEnvelope, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { keys: data, total } = await keys.listKeys(notesCallerOf(request), request.query);
      return { status: 'success' as const, data, meta: metaOf(request.query, total) };
    },
  );

  app.delete(
    '/api-keys/:id',
    {
      config: { access: { notesPermission: 'keys:manage' } },
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key and the keys it created',
        description:
          'Revokes the key and every key below it: the keys it created, the keys those created, and so on, in one ' +
          'transaction (a key revoked earlier keeps its first `revoked_at`). `data` is the key itself; ' +
          '`data.revoked_key_ids` lists every key this call revoked. Takes effect at once: every server forgets its ' +
          'cached keys as the revocation commits (within a second). Revoking twice is harmless, and revokes whatever ' +
          'below the key is still active.',
        tags,
        params: KeyIdParams,
        response: { 200: ApiKeyEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const data = await keys.revoke(notesCallerOf(request), request.params.id);
      return { status: 'success' as const, data };
    },
  );

  app.get(
    '/api-keys/:id/usage',
    {
      config: { access: { notesPermission: 'keys:manage' } },
      schema: {
        operationId: 'getApiKeyUsage',
        summary: 'Requests of a key per day and per endpoint, by status class',
        description: 'Window: `from`/`to` (UTC days, inclusive) or the last `days` days (default 30).',
        tags,
        params: KeyIdParams,
        querystring: UsageQuery,
        response: { 200: UsageEnvelope, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const data = await keys.usage(notesCallerOf(request), request.params.id, request.query);
      return { status: 'success' as const, data };
    },
  );
}
