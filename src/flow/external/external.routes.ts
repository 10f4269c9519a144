import { z } from 'zod';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { registerRateLimit } from '../../platform/rate-limit.ts';
import { externalContactRoutes } from '../contacts/contacts.routes.ts';
import type { FlowModule } from '../flow.module.ts';
import { CRM_SCOPES } from '../keys/scopes.ts';
import { keyCaller } from '../request-context.ts';
import { externalSurveyRoutes } from '../surveys/surveys.routes.ts';
import { enforceExternalAuth } from './external-auth.ts';

const Identity = z
  .object({
    workspace_id: UuidSchema,
    workspace_name: z.string(),
    key: z.object({ name: z.string(), prefix: z.string(), scopes: z.array(z.enum(CRM_SCOPES)) }),
  })
  .meta({ id: 'CrmIdentity' });

/**
 * `/external/*`: the bearer-key API for ERPs. Every route here gets bearer authentication and must
 * declare `config.access` (`{ crmScope }`); feature routes (contacts, surveys) register inside this scope.
 */
export async function externalRoutes(app: AppInstance, { module }: { module: FlowModule }) {
  enforceExternalAuth(app);
  // After authentication (route hooks run in registration order): the limit is per key.
  const { config, database, redis } = app.vetflow;
  await registerRateLimit(app, {
    db: database.db,
    redis,
    subjectOf: (request) =>
      request.crmKey ? { key: `crm:${request.crmKey.keyId}`, limitPerMinute: config.CRM_RATE_LIMIT_PER_MINUTE } : null,
  });

  app.get(
    '/me',
    {
      config: { access: { crmScope: null, allowSuspendedBilling: true } },
      schema: {
        operationId: 'getKeyIdentity',
        summary: 'The workspace and key behind the bearer token',
        description: 'Any valid, non-revoked key; answers even while the workspace billing is suspended.',
        tags: ['CRM external'],
        response: { 200: Identity, ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const key = keyCaller(request);
      return {
        workspace_id: key.workspaceId,
        workspace_name: key.workspaceName,
        key: { name: key.keyName, prefix: key.prefix, scopes: [...key.scopes] },
      };
    },
  );

  await app.register(externalContactRoutes);
  await app.register(externalSurveyRoutes, { module });
}
