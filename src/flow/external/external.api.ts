import type { AppInstance } from '../../platform/http/types.ts';
import { registerRateLimit } from '../../platform/rate-limit.ts';
import { externalContactRoutes } from '../contacts/contacts.routes.ts';
import type { FlowServices } from '../flow.module.ts';
import { externalMessageRoutes } from '../messages/messages.routes.ts';
import { externalSurveyRoutes } from '../surveys/surveys.routes.ts';
import { enforceExternalAuth } from './external-auth.ts';
import { keyIdentityRoutes } from './identity.routes.ts';

/**
 * `/external/*`: the bearer-key API for ERPs, a scope like the CRM-side one in `flow.api.ts`. Every
 * route here gets bearer authentication and the per-key rate limit and must declare `config.access`
 * (`{ crmScope }`); feature routes (identity, contacts, surveys) register inside this scope.
 */
export async function externalApi(app: AppInstance, { services }: { services: FlowServices }) {
  enforceExternalAuth(app);
  // After authentication (route hooks run in registration order): the limit is per key.
  const { config, database, redis } = app.vetflow;
  await registerRateLimit(app, {
    db: database.db,
    redis,
    subjectOf: (request) =>
      request.crmKey ? { key: `crm:${request.crmKey.keyId}`, limitPerMinute: config.CRM_RATE_LIMIT_PER_MINUTE, role: 'crm_key' } : null,
  });

  await app.register(keyIdentityRoutes);
  await app.register(externalContactRoutes, {
    upserter: services.upserter,
    contacts: services.contacts,
    changes: services.changes,
    erasure: services.erasure,
    contactExport: services.contactExport,
  });
  await app.register(externalSurveyRoutes, { surveys: services.surveys });
  await app.register(externalMessageRoutes, { messages: services.messages });
}
