import type { ApiDescription } from '../platform/http/openapi.ts';
import type { AppInstance } from '../platform/http/types.ts';

export const flowApiDescription: ApiDescription = {
  prefix: '/flow/v1',
  title: 'vetflow CRM integration API',
  version: '1.0.0',
  description:
    'Upsert, read and soft-delete contacts of a CRM workspace and trigger satisfaction surveys with a ' +
    'workspace-bound bearer key. Every error has the flat body `{error, message, code, details?, request_id}`.',
  securitySchemes: {
    CrmBearer: { type: 'http', scheme: 'bearer', description: '`crm_live_...` token bound to one workspace' },
    CrmSession: { type: 'apiKey', in: 'cookie', name: 'vetflow_session', description: 'CRM user session (login)' },
  },
};

/** The /flow/v1 tree: routes are registered here as the features land. */
export async function flowApi(_app: AppInstance) {}
