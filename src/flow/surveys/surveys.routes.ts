import { z } from 'zod';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { parseInput } from '../http/parse-input.ts';
import { keyCaller } from '../request-context.ts';
import { DEFAULT_SURVEY_REASON, NOT_TRIGGERED, type SurveysService } from './surveys.service.ts';

const TriggerBody = z
  .strictObject({
    external_id: z.string().max(100).optional(),
    document: z.string().max(50).optional(),
    phone: z.string().max(40).optional(),
    reason: z.string().max(100).optional().describe(`Default \`${DEFAULT_SURVEY_REASON}\``),
  })
  .describe('One of external_id, document, phone (same lookup order as the contact upsert; deleted contacts are not found).')
  .meta({ id: 'SurveyTrigger' });

const TriggerResult = z
  .object({
    triggered: z.boolean(),
    lead_id: UuidSchema,
    contact_id: UuidSchema,
    reason: z
      .string()
      .describe(`When triggered, the request's reason; otherwise why not: ${NOT_TRIGGERED.map((r) => `\`${r}\``).join(', ')}`),
  })
  .meta({ id: 'SurveyTriggerResult' });

export async function externalSurveyRoutes(app: AppInstance, { surveys }: { surveys: SurveysService }) {
  app.post(
    '/workspaces/:workspace_id/satisfaction-surveys',
    {
      config: { access: { crmScope: 'satisfaction:write' } },
      attachValidation: true,
      schema: {
        operationId: 'triggerSatisfactionSurvey',
        summary: 'Trigger a satisfaction survey',
        description:
          'Needs an active contact with an active lead (else 404). Answers 200 `triggered: true` when the survey ' +
          'configuration is enabled, no survey was sent for this lead and the contact has a chat: the lead moves to the ' +
          'survey stage and a survey message is queued to the newest chat. Otherwise 200 `triggered: false` with the reason. ' +
          'Concurrent triggers send one survey. Invalid body or no identifier → 400.\n\n' +
          'Making a contact triggerable takes five calls on the CRM side (`/flow/v1/api/workspaces/{workspace_id}`, with ' +
          "an administrator's session cookie from `POST /flow/v1/api/auth/login`), once the contact exists: " +
          '(1) `POST …/pipeline-stages` `{name, position}`: a stage for open leads; ' +
          '(2) `POST …/pipeline-stages`: the survey stage surveyed leads move to; ' +
          '(3) `PUT …/survey-config` `{enabled: true, survey_stage_id}`; ' +
          '(4) `POST …/leads` `{contact_id, stage_id}` with the first stage: the active lead; ' +
          '(5) `POST …/chats` `{contact_id}`: the chat the message goes to. ' +
          'Stages and the configuration are made once per workspace; the lead and the chat once per contact. ' +
          'Without the configuration (3) the answer is `triggered: false` (`survey_disabled`), without the lead (4) ' +
          '404 `LEAD_NOT_FOUND`, without the chat (5) `triggered: false` (`no_chat`).',
        tags: ['CRM external: surveys'],
        params: z.object({ workspace_id: UuidSchema }),
        body: TriggerBody,
        response: { 200: TriggerResult, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => surveys.triggerSurvey(keyCaller(request), parseInput(TriggerBody, request.body)),
  );
}
