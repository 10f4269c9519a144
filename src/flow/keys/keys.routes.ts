import { z } from 'zod';
import { errorResponses, TimestampSchema, toTimestamp, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { WorkspaceParams } from '../http/params.ts';
import { sessionCaller } from '../request-context.ts';
import type { ApiKeyRow } from './keys.repo.ts';
import type { CrmKeysService } from './keys.service.ts';
import { CRM_SCOPES } from './scopes.ts';

const KeyParams = WorkspaceParams.extend({ id: UuidSchema });

const NewKeyBody = z.object({
  name: z.string().min(1).max(100),
  // Checked against the catalogue by the service, so an unknown scope is a 400 INVALID_SCOPE.
  scopes: z
    .array(z.string())
    .min(1)
    .max(CRM_SCOPES.length * 2)
    .describe(`Any of ${CRM_SCOPES.join(', ')}; an unknown scope → 400 INVALID_SCOPE`),
});

const KeyFields = {
  id: UuidSchema,
  name: z.string(),
  prefix: z.string().describe('The first 12 characters of the token'),
  scopes: z.array(z.enum(CRM_SCOPES)),
  workspace_id: UuidSchema,
  created_at: TimestampSchema,
};
const IssuedKey = z.object({ ...KeyFields, token: z.string().describe('`crm_live_...`: shown this once, never again') });
const ListedKey = z.object({ ...KeyFields, last_used_at: TimestampSchema.nullable() }).meta({ id: 'CrmApiKey' });

function toKeyBody(key: ApiKeyRow) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes as (typeof CRM_SCOPES)[number][],
    workspace_id: key.workspaceId,
    created_at: toTimestamp(key.createdAt),
  };
}

const tags = ['CRM API keys'];

/** `W/api-keys`: issue, list and revoke integration keys (workspace administrators only). */
export async function crmKeyRoutes(app: AppInstance, { keys }: { keys: CrmKeysService }) {
  app.post(
    '/api/workspaces/:workspace_id/api-keys',
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'issueCrmApiKey',
        summary: 'Issue a CRM API key',
        description: 'Administrator session of the workspace. The token is in this response only; only its SHA-256 is stored.',
        tags,
        params: WorkspaceParams,
        body: NewKeyBody,
        response: { 201: IssuedKey, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const { key, token } = await keys.issueApiKey(sessionCaller(request), request.params.workspace_id, request.body);
      return reply.code(201).send({ ...toKeyBody(key), token });
    },
  );

  app.get(
    '/api/workspaces/:workspace_id/api-keys',
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'listCrmApiKeys',
        summary: 'List the active CRM API keys',
        description: 'Revoked keys are not listed; tokens never are. `last_used_at` is updated at most once a minute.',
        tags,
        params: WorkspaceParams,
        response: { 200: z.object({ data: z.array(ListedKey), meta: z.object({ total: z.int() }) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const listed = await keys.listApiKeys(sessionCaller(request), request.params.workspace_id);
      return {
        data: listed.map((key) => ({ ...toKeyBody(key), last_used_at: key.lastUsedAt ? toTimestamp(key.lastUsedAt) : null })),
        meta: { total: listed.length },
      };
    },
  );

  app.delete(
    '/api/workspaces/:workspace_id/api-keys/:id',
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'revokeCrmApiKey',
        summary: 'Revoke a CRM API key',
        description: 'Takes effect on the next request, on every process. Revoking a revoked key is a no-op (204).',
        tags,
        params: KeyParams,
        response: { 204: z.null().describe('Revoked'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await keys.revokeKey(sessionCaller(request), request.params.workspace_id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
