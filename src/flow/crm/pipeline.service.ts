import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { uniqueViolation } from '../../platform/db/unique-violation.ts';
import { AppError } from '../../platform/errors.ts';
import { assertAdministrator, assertMember } from '../access.ts';
import type { CrmCaller } from '../callers.ts';
import { findContact } from '../contacts/contacts.repo.ts';
import {
  type ChatRow,
  findLead,
  findStage,
  insertChat,
  insertLead,
  insertStage,
  type LeadRow,
  listStages,
  type StageRow,
  updateLead,
} from './pipeline.repo.ts';

/** What the pipeline (stages, leads, chats) is run with. */
export interface PipelineDeps {
  db: Db;
}

function getStages({ db }: PipelineDeps, caller: CrmCaller, workspaceId: string): Promise<StageRow[]> {
  assertMember(caller, workspaceId);
  return listStages(workspaceId, db);
}

function createStage(
  { db }: PipelineDeps,
  caller: CrmCaller,
  workspaceId: string,
  input: { name: string; position: number },
): Promise<StageRow> {
  assertAdministrator(caller, workspaceId, 'create pipeline stages');
  return insertStage({ workspaceId, name: input.name.trim(), position: input.position }, db);
}

export async function stageOrThrow(workspaceId: string, stageId: string, db: Db): Promise<StageRow> {
  const stage = await findStage(workspaceId, stageId, db);
  if (!stage) throw new AppError('STAGE_NOT_FOUND', 'Pipeline stage not found in this workspace', { field: 'stage_id' });
  return stage;
}

async function contactOrThrow(workspaceId: string, contactId: string, db: Db): Promise<void> {
  if (!(await findContact(workspaceId, contactId, {}, db)))
    throw new AppError('CONTACT_NOT_FOUND', 'Contact not found', { field: 'contact_id' });
}

/** A contact has at most one active lead (unique index): a second → 409 ACTIVE_LEAD_EXISTS. */
async function createLead(
  { db }: PipelineDeps,
  caller: CrmCaller,
  workspaceId: string,
  input: { contact_id: string; stage_id: string },
): Promise<LeadRow> {
  assertMember(caller, workspaceId);
  await contactOrThrow(workspaceId, input.contact_id, db);
  await stageOrThrow(workspaceId, input.stage_id, db);
  try {
    return await insertLead({ workspaceId, contactId: input.contact_id, stageId: input.stage_id }, db);
  } catch (error) {
    if (uniqueViolation(error) === 'leads_one_active_per_contact_key') {
      throw new AppError('ACTIVE_LEAD_EXISTS', 'This contact already has an active lead; finish it first');
    }
    throw error;
  }
}

async function changeLead(
  { db }: PipelineDeps,
  caller: CrmCaller,
  workspaceId: string,
  leadId: string,
  input: { stage_id?: string; status?: 'active' | 'finished' },
): Promise<LeadRow> {
  assertMember(caller, workspaceId);
  const lead = await findLead(workspaceId, leadId, db);
  if (!lead) throw new AppError('LEAD_NOT_FOUND', 'Lead not found');
  if (input.stage_id) await stageOrThrow(workspaceId, input.stage_id, db);
  const changes: Parameters<typeof updateLead>[1] = {};
  if (input.stage_id) changes.stageId = input.stage_id;
  if (input.status && input.status !== lead.status) {
    changes.status = input.status;
    changes.finishedAt = input.status === 'finished' ? new Date() : null;
  }
  try {
    return Object.keys(changes).length > 0 ? await updateLead(lead.id, changes, db) : lead;
  } catch (error) {
    if (uniqueViolation(error) === 'leads_one_active_per_contact_key') {
      throw new AppError('ACTIVE_LEAD_EXISTS', 'This contact already has another active lead');
    }
    throw error;
  }
}

async function createChat(
  { db }: PipelineDeps,
  caller: CrmCaller,
  workspaceId: string,
  input: { contact_id: string; channel?: string },
): Promise<ChatRow> {
  assertMember(caller, workspaceId);
  await contactOrThrow(workspaceId, input.contact_id, db);
  return insertChat({ workspaceId, contactId: input.contact_id, channel: input.channel?.trim() || 'whatsapp' }, db);
}

/** Stages, leads and chats of a workspace, bound to its database once. */
export function pipelineService(deps: PipelineDeps) {
  return bindService(deps, { getStages, createStage, createLead, changeLead, createChat });
}

export type PipelineService = ReturnType<typeof pipelineService>;
