import { z } from 'zod';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { WorkspaceParams } from '../http/params.ts';
import { sessionCaller } from '../request-context.ts';
import type { LeadRow } from './pipeline.repo.ts';
import type { PipelineService } from './pipeline.service.ts';

const Stage = z.object({ id: UuidSchema, name: z.string(), position: z.int() }).meta({ id: 'PipelineStage' });
const Lead = z
  .object({ id: UuidSchema, contact_id: UuidSchema, stage_id: UuidSchema, status: z.enum(['active', 'finished']) })
  .meta({ id: 'Lead' });
const Chat = z.object({ id: UuidSchema, contact_id: UuidSchema, channel: z.string() }).meta({ id: 'Chat' });

const toLead = (lead: LeadRow) => ({ id: lead.id, contact_id: lead.contactId, stage_id: lead.stageId, status: lead.status });
const tags = ['CRM pipeline'];

/** `W/pipeline-stages`, `W/leads`, `W/chats`: what a survey trigger needs to find (session). */
export async function pipelineRoutes(app: AppInstance, { pipeline }: { pipeline: PipelineService }) {
  app.get(
    '/api/workspaces/:workspace_id/pipeline-stages',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'listPipelineStages',
        summary: 'List pipeline stages',
        description: 'Ordered by position. Any user of the workspace.',
        tags,
        params: WorkspaceParams,
        response: { 200: z.object({ data: z.array(Stage), meta: z.object({ total: z.int() }) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const stages = await pipeline.getStages(sessionCaller(request), request.params.workspace_id);
      return { data: stages.map(({ id, name, position }) => ({ id, name, position })), meta: { total: stages.length } };
    },
  );

  app.post(
    '/api/workspaces/:workspace_id/pipeline-stages',
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'createPipelineStage',
        summary: 'Create a pipeline stage',
        description: 'Administrators only.',
        tags,
        params: WorkspaceParams,
        body: z.strictObject({ name: z.string().trim().min(1).max(100), position: z.int().min(0).max(10_000) }),
        response: { 201: Stage, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { id, name, position } = await pipeline.createStage(sessionCaller(request), request.params.workspace_id, request.body);
      return reply.code(201).send({ id, name, position });
    },
  );

  app.post(
    '/api/workspaces/:workspace_id/leads',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'createLead',
        summary: 'Open a lead for a contact',
        description: 'A contact has at most one active lead: a second → 409 ACTIVE_LEAD_EXISTS.',
        tags,
        params: WorkspaceParams,
        body: z.strictObject({ contact_id: UuidSchema, stage_id: UuidSchema }),
        response: { 201: Lead, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toLead(await pipeline.createLead(sessionCaller(request), request.params.workspace_id, request.body))),
  );

  app.patch(
    '/api/workspaces/:workspace_id/leads/:lead_id',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'updateLead',
        summary: 'Move a lead or finish it',
        description: '`status: finished` ends the lead (a survey trigger then finds no active lead).',
        tags,
        params: WorkspaceParams.extend({ lead_id: UuidSchema }),
        body: z.strictObject({ stage_id: UuidSchema.optional(), status: z.enum(['active', 'finished']).optional() }),
        response: { 200: Lead, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) =>
      toLead(await pipeline.changeLead(sessionCaller(request), request.params.workspace_id, request.params.lead_id, request.body)),
  );

  app.post(
    '/api/workspaces/:workspace_id/chats',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'createChat',
        summary: 'Open a chat with a contact',
        description: "Survey messages go to the contact's newest chat. `channel` defaults to `whatsapp`.",
        tags,
        params: WorkspaceParams,
        body: z.strictObject({ contact_id: UuidSchema, channel: z.string().trim().min(1).max(50).optional() }),
        response: { 201: Chat, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const chat = await pipeline.createChat(sessionCaller(request), request.params.workspace_id, request.body);
      return reply.code(201).send({ id: chat.id, contact_id: chat.contactId, channel: chat.channel });
    },
  );
}
