import { z } from 'zod';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { CRM_SCOPES } from '../keys/scopes.ts';
import { keyCaller } from '../request-context.ts';

const Identity = z
  .object({
    workspace_id: UuidSchema,
    workspace_name: z.string(),
    key: z.object({ name: z.string(), prefix: z.string(), scopes: z.array(z.enum(CRM_SCOPES)) }),
  })
  .meta({ id: 'CrmIdentity' });

/** `/external/me`: the workspace and key behind a bearer token; registered inside `externalApi`. */
export async function keyIdentityRoutes(app: AppInstance) {
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
}
