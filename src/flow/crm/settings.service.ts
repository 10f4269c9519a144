import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { assertAdministrator, assertMember } from '../access.ts';
import type { CrmCaller } from '../callers.ts';
import { findWorkspace, updateWorkspace, type WorkspaceRow } from '../workspaces/workspaces.repo.ts';
import { stageOrThrow } from './pipeline.service.ts';

/** What workspace settings are read and changed with. */
export interface SettingsDeps {
  db: Db;
}

async function workspaceOrThrow(workspaceId: string, db: Db): Promise<WorkspaceRow> {
  const workspace = await findWorkspace(workspaceId, db);
  if (!workspace) throw new AppError('WORKSPACE_NOT_FOUND', 'Workspace not found');
  return workspace;
}

async function readWorkspace({ db }: SettingsDeps, caller: CrmCaller, workspaceId: string): Promise<WorkspaceRow> {
  assertMember(caller, workspaceId);
  return workspaceOrThrow(workspaceId, db);
}

/** The settings an administrator changes; those not given stay as they are. */
export type SettingsChanges = Partial<Pick<WorkspaceRow, 'contactSyncPolicy' | 'externalIdRekeying'>>;

async function changeSettings({ db }: SettingsDeps, caller: CrmCaller, workspaceId: string, changes: SettingsChanges) {
  assertAdministrator(caller, workspaceId, 'change workspace settings');
  const workspace = await workspaceOrThrow(workspaceId, db);
  if (Object.keys(changes).length === 0) return workspace;
  return (await updateWorkspace(workspaceId, changes, db))!;
}

/** Enabling surveys needs a survey stage of this workspace; disabling may keep or clear it. */
async function configureSurvey(
  { db }: SettingsDeps,
  caller: CrmCaller,
  workspaceId: string,
  input: { enabled: boolean; survey_stage_id: string | null },
) {
  assertAdministrator(caller, workspaceId, 'change the survey configuration');
  await workspaceOrThrow(workspaceId, db);
  if (input.enabled && !input.survey_stage_id) {
    throw new AppError('INVALID_REQUEST', 'An enabled survey needs a survey_stage_id', {
      field: 'survey_stage_id',
      reason: 'required when enabled',
    });
  }
  if (input.survey_stage_id) await stageOrThrow(workspaceId, input.survey_stage_id, db);
  return (await updateWorkspace(workspaceId, { surveyEnabled: input.enabled, surveyStageId: input.survey_stage_id }, db))!;
}

/** Workspace settings and survey configuration, bound to the database once. */
export function settingsService(deps: SettingsDeps) {
  return bindService(deps, { readWorkspace, changeSettings, configureSurvey });
}

export type SettingsService = ReturnType<typeof settingsService>;
