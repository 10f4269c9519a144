import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { SettingsEnvelope, SettingsPatchBody } from './settings.schemas.ts';
import type { SettingsService } from './settings.service.ts';

const tags = ['Settings'];

export async function settingsRoutes(app: AppInstance, { settings }: { settings: SettingsService }) {
  app.get(
    '/settings',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'getSettings',
        summary: "Your clinic's Notes settings",
        tags,
        response: { 200: SettingsEnvelope, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await settings.get(notesCallerOf(request)) }),
  );

  app.patch(
    '/settings',
    {
      config: { access: { notesPermission: 'keys:manage' } },
      schema: {
        operationId: 'updateSettings',
        summary: "Change your clinic's Notes settings (administrator)",
        description:
          'Only the settings sent change; an unknown setting is refused with 422. Notes already made keep what they were made with. ' +
          '`crm_link` stores a CRM key encrypted (503 `WEBHOOK_KEY_MISSING` on a server without its encryption key).',
        tags,
        body: SettingsPatchBody,
        response: { 200: SettingsEnvelope, ...errorResponses(400, 401, 403, 422, 429, 503) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await settings.update(notesCallerOf(request), request.body) }),
  );
}
