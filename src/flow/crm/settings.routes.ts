import { z } from 'zod';
import { CONTACT_SYNC_POLICIES, EXTERNAL_ID_REKEYING } from '../../platform/db/schema/index.ts';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { WorkspaceParams } from '../http/params.ts';
import { sessionCaller } from '../request-context.ts';
import type { WorkspaceRow } from '../workspaces/workspaces.repo.ts';
import type { SettingsService } from './settings.service.ts';

const SurveyConfig = z.object({ enabled: z.boolean(), survey_stage_id: UuidSchema.nullable() }).meta({ id: 'SurveyConfig' });
const SyncPolicy = z.enum(CONTACT_SYNC_POLICIES).describe('`flow`: CRM edits of name/phone win; `erp`: the ERP always wins');
const Rekeying = z
  .enum(EXTERNAL_ID_REKEYING)
  .describe(
    'An ERP upsert with a new external_id whose document or phone matched a contact that has another external_id: ' +
      '`replace` (the default) takes the contact over and warns `external_id_replaced`; `refuse` answers 409 `EXTERNAL_ID_CONFLICT`.',
  );
const Settings = z.object({ contact_sync_policy: SyncPolicy, external_id_rekeying: Rekeying }).meta({ id: 'WorkspaceSettings' });
const settingsOf = (workspace: WorkspaceRow) => ({
  contact_sync_policy: workspace.contactSyncPolicy,
  external_id_rekeying: workspace.externalIdRekeying,
});
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
    async (request) => settingsOf(await settings.readWorkspace(sessionCaller(request), request.params.workspace_id)),
  );

  app.patch(
    `${base}/settings`,
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'updateWorkspaceSettings',
        summary: 'Change workspace settings',
        description: 'Administrators only. Settings not sent stay as they are.',
        tags,
        params: WorkspaceParams,
        body: z.strictObject({ contact_sync_policy: SyncPolicy.optional(), external_id_rekeying: Rekeying.optional() }),
        response: { 200: Settings, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { contact_sync_policy, external_id_rekeying } = request.body;
      const changes = {
        ...(contact_sync_policy ? { contactSyncPolicy: contact_sync_policy } : {}),
        ...(external_id_rekeying ? { externalIdRekeying: external_id_rekeying } : {}),
      };
      return settingsOf(await settings.changeSettings(sessionCaller(request), request.params.workspace_id, changes));
    },
  );
}
