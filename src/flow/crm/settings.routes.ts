import { z } from 'zod';
import { CONTACT_SYNC_POLICIES } from '../../platform/db/schema/index.ts';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { WorkspaceParams } from '../http/params.ts';
import { sessionCaller } from '../request-context.ts';
import type { SettingsService } from './settings.service.ts';

const SurveyConfig = z.object({ enabled: z.boolean(), survey_stage_id: UuidSchema.nullable() }).meta({ id: 'SurveyConfig' });
const Settings = z
  .object({
    contact_sync_policy: z.enum(CONTACT_SYNC_POLICIES).describe('`flow`: CRM edits of name/phone win; `erp`: the ERP always wins'),
  })
  .meta({ id: 'WorkspaceSettings' });
const tags = ['CRM settings'];

/** `W/survey-config` and `W/settings`: any user reads, administrators change. */
export async function settingsRoutes(app: AppInstance, { settings }: { settings: SettingsService }) {
  const base = '/api/workspaces/:workspace_id';

  app.get(
    `${base}/survey-config`,
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'getSurveyConfig',
        summary: 'Read the survey configuration',
        tags,
        params: WorkspaceParams,
        response: { 200: SurveyConfig, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const workspace = await settings.readWorkspace(sessionCaller(request), request.params.workspace_id);
      return { enabled: workspace.surveyEnabled, survey_stage_id: workspace.surveyStageId };
    },
  );

  app.put(
    `${base}/survey-config`,
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'configureSurvey',
        summary: 'Configure satisfaction surveys',
        description: 'Administrators only. Enabling needs a pipeline stage of this workspace (the stage a surveyed lead moves to).',
        tags,
        params: WorkspaceParams,
        body: z.strictObject({ enabled: z.boolean(), survey_stage_id: UuidSchema.nullable() }),
        response: { 200: SurveyConfig, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const workspace = await settings.configureSurvey(sessionCaller(request), request.params.workspace_id, request.body);
      return { enabled: workspace.surveyEnabled, survey_stage_id: workspace.surveyStageId };
    },
  );

  app.get(
    `${base}/settings`,
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'getWorkspaceSettings',
        summary: 'Read workspace settings',
        tags,
        params: WorkspaceParams,
        response: { 200: Settings, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      contact_sync_policy: (await settings.readWorkspace(sessionCaller(request), request.params.workspace_id)).contactSyncPolicy,
    }),
  );

  app.patch(
    `${base}/settings`,
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'updateWorkspaceSettings',
        summary: 'Change workspace settings',
        description: 'Administrators only.',
        tags,
        params: WorkspaceParams,
        body: z.strictObject({ contact_sync_policy: z.enum(CONTACT_SYNC_POLICIES) }),
        response: { 200: Settings, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const workspace = await settings.changeSyncPolicy(
        sessionCaller(request),
        request.params.workspace_id,
        request.body.contact_sync_policy,
      );
      return { contact_sync_policy: workspace.contactSyncPolicy };
    },
  );
}
