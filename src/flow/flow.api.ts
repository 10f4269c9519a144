import { refuseWhileDatabaseDown } from '../platform/http/database-gate.ts';
import type { ApiDescription } from '../platform/http/openapi.ts';
import type { AppInstance } from '../platform/http/types.ts';
import { authRoutes } from './auth/auth.routes.ts';
import { enforceSessionAccess } from './auth/require-session.ts';
import { auditRoutes } from './crm/audit-trail.routes.ts';
import { crmContactRoutes } from './crm/crm-contacts.routes.ts';
import { pipelineRoutes } from './crm/pipeline.routes.ts';
import { settingsRoutes } from './crm/settings.routes.ts';
import { externalApi } from './external/external.api.ts';
import type { FlowModule } from './flow.module.ts';
import { followCrmKeyInvalidations } from './keys/key-cache.ts';
import { crmKeyRoutes } from './keys/keys.routes.ts';
import { userRoutes } from './users/users.routes.ts';

export const flowApiDescription: ApiDescription = {
  prefix: '/flow/v1',
  title: 'vetflow CRM integration API',
  version: '1.0.0',
  description:
    'Upsert, read and soft-delete contacts of a CRM workspace and trigger satisfaction surveys with a ' +
    'workspace-bound bearer key. Every error has the flat body `{error, message, code, details?, request_id}`. ' +
    'Tokens are `crm_live_` + 32 random base62 characters + a 6-character base62 CRC32 checksum. More than ' +
    '20 failed authentications (bearer or login) from one IP within 10 minutes → 429 for that IP for 10 minutes.',
  securitySchemes: {
    CrmBearer: { type: 'http', scheme: 'bearer', description: '`crm_live_...` token bound to one workspace' },
    CrmSession: {
      type: 'apiKey',
      in: 'cookie',
      name: 'vetflow_session',
      description: 'CRM user session (login); named `__Host-vetflow_session` when the service is served over https',
    },
  },
  securityByAccess: { crmScope: 'CrmBearer', crmSessionRole: 'CrmSession' },
};

/** The /flow/v1 tree: CRM sessions, keys, contacts, pipeline and settings (`/api`), and the ERP-facing `/external` API. */
export async function flowApi(app: AppInstance, { module }: { module: FlowModule }) {
  const { database } = app.vetflow;
  const unfollow = followCrmKeyInvalidations(database.db, database.invalidation);
  app.addHook('onClose', async () => unfollow());
  // First: while the database is known down, nothing below it is worth starting.
  refuseWhileDatabaseDown(app);
  // CRM-side routes: each declares a session role (or 'public') and gets the session guard from it.
  const { services } = module;
  await app.register(async (crm) => {
    enforceSessionAccess(crm, services.sessions);
    await crm.register(authRoutes, { sessions: services.sessions });
    await crm.register(crmKeyRoutes, { keys: services.keys });
    await crm.register(userRoutes, { users: services.users });
    await crm.register(crmContactRoutes, { contacts: services.crmContacts });
    await crm.register(auditRoutes, { audit: services.audit });
    await crm.register(pipelineRoutes, { pipeline: services.pipeline });
    await crm.register(settingsRoutes, { settings: services.settings });
  });
  await app.register(externalApi, { prefix: '/external', services });
}
