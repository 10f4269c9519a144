import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { phoneOrThrow } from '../contacts/contact-input.ts';
import { findMatch } from '../contacts/contacts.repo.ts';
import { claimSurvey, findActiveLead, latestChat } from '../crm/pipeline.repo.ts';
import type { ChatMessageJob } from '../messages/chat-message.job.ts';
import { insertChatMessage } from '../messages/messages.repo.ts';
import { findWorkspace } from '../workspaces/workspaces.repo.ts';

export const DEFAULT_SURVEY_REASON = 'visit_completed_external';
/** Why a trigger did nothing (the `reason` of a `triggered: false` answer). */
export const NOT_TRIGGERED = ['survey_disabled', 'already_sent', 'no_chat'] as const;

export interface SurveyTrigger {
  external_id?: string;
  document?: string;
  phone?: string;
  reason?: string;
}

export interface SurveyResult {
  triggered: boolean;
  lead_id: string;
  contact_id: string;
  reason: string;
}

const SURVEY_TEXT = 'Olá! Obrigado pela visita. De 0 a 10, quanto você recomendaria nossa clínica a um amigo? Responda com uma nota.';

export interface SurveyDeps {
  db: Db;
  jobs: JobQueue;
  job: ChatMessageJob;
}

/**
 * POST /external/.../satisfaction-surveys. Contact (active only) and active lead must exist, else
 * 404. Then, in order: configuration disabled → `survey_disabled`; survey already sent for this
 * lead → `already_sent`; no chat → `no_chat`. Otherwise the lead moves to the survey stage and the
 * message is queued, all in one transaction; the lead's survey_sent_at guard makes it once only.
 */
async function triggerSurvey(deps: SurveyDeps, caller: ApiKeyCaller, input: SurveyTrigger): Promise<SurveyResult> {
  const ids = {
    externalId: input.external_id?.trim() || undefined,
    document: input.document?.trim() || undefined,
    phone: input.phone?.trim() ? phoneOrThrow(input.phone) : undefined,
  };
  if (!ids.externalId && !ids.document && !ids.phone) {
    throw new AppError('MISSING_IDENTIFIER', 'Send one of external_id, document, phone to identify the contact', {
      field: 'external_id',
      reason: 'at least one of external_id, document, phone is required',
    });
  }
  const reason = input.reason?.trim() || DEFAULT_SURVEY_REASON;
  return deps.db.transaction(async (tx) => {
    const contact = await findMatch(caller.workspaceId, ids, { includeDeleted: false }, tx);
    if (!contact) throw new AppError('CONTACT_NOT_FOUND', 'No active contact matches');
    const lead = await findActiveLead(contact.id, tx);
    if (!lead) throw new AppError('LEAD_NOT_FOUND', 'The contact has no active lead');
    const answer = (triggered: boolean, why: string): SurveyResult => ({
      triggered,
      lead_id: lead.id,
      contact_id: contact.id,
      reason: why,
    });

    const workspace = await findWorkspace(caller.workspaceId, tx);
    if (!workspace?.surveyEnabled || !workspace.surveyStageId) return answer(false, 'survey_disabled');
    if (lead.surveySentAt) return answer(false, 'already_sent');
    const chat = await latestChat(contact.id, tx);
    if (!chat) return answer(false, 'no_chat');
    // The concurrent loser waits here for the winner's commit, then matches nothing.
    if (!(await claimSurvey(lead.id, workspace.surveyStageId, tx))) return answer(false, 'already_sent');
    const message = await insertChatMessage(
      { chatId: chat.id, leadId: lead.id, kind: 'satisfaction_survey', body: SURVEY_TEXT, reason },
      tx,
    );
    await deps.jobs.send(deps.job, { messageId: message.id }, { tx });
    return answer(true, reason);
  });
}

/** Survey triggers, bound to the database and the message job once. */
export function surveysService(deps: SurveyDeps) {
  return bindService(deps, { triggerSurvey });
}

export type SurveysService = ReturnType<typeof surveysService>;
