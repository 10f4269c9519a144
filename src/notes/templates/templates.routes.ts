import { z } from 'zod';
import { metaOf } from '../../platform/http/pagination.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import {
  CreateTemplateBody,
  TEMPLATE_LIMIT,
  TEMPLATE_LIST_LIMIT,
  TemplateEnvelope,
  TemplateIdParams,
  TemplateListEnvelope,
  TemplateListQuery,
  UpdateTemplateBody,
} from './templates.schemas.ts';
import type { TemplatesService } from './templates.service.ts';

const tags = ['Templates'];
const read = { access: { notesPermission: 'notes:read' } } as const;
// A template shapes every note the clinic makes: an administrator's business.
const manage = { access: { notesPermission: 'keys:manage' } } as const;

const VALIDATION =
  '`slug` 1-50 of `[a-z0-9-]`, unique in the clinic with the built-ins (409 `TEMPLATE_EXISTS`); `name` 1-100; 1-20 ' +
  'sections, each `label` 1-50 of `[a-z0-9_]` unique in the template, `title` 1-100, `includes` base labels, ' +
  '`instructions` at most 2,000 characters or null. Every base label must be in exactly one section: a label in none ' +
  'or in two → 422 `VALIDATION_ERROR` with `details.field` = that base label.';

export async function templateRoutes(app: AppInstance, { templates }: { templates: TemplatesService }) {
  app.get(
    '/templates',
    {
      config: read,
      schema: {
        operationId: 'listTemplates',
        summary: "Your clinic's note templates, built-ins first",
        description:
          'The built-ins `padrao` (the six base sections, the default) and `soap` (Subjetivo ← anamnesis, Objetivo ← ' +
          "physical_exam, Avaliação ← diagnosis, Plano ← treatment, follow_up, observations), then the clinic's own " +
          `(oldest first; at most ${TEMPLATE_LIMIT}). Paged with \`page\` and \`limit\` (1-${TEMPLATE_LIST_LIMIT}, default ` +
          `${TEMPLATE_LIST_LIMIT}): without them the answer is every template, as before paging; \`meta.total\` counts the built-ins.`,
        tags,
        querystring: TemplateListQuery,
        response: { 200: TemplateListEnvelope, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { templates: data, total } = await templates.list(notesCallerOf(request), request.query);
      return { status: 'success' as const, data, meta: metaOf(request.query, total) };
    },
  );

  app.post(
    '/templates',
    {
      config: manage,
      schema: {
        operationId: 'createTemplate',
        summary: 'Create a note template (administrator)',
        description: `${VALIDATION} A clinic holds at most ${TEMPLATE_LIMIT} templates of its own: one more → 409 \`LIMIT_REACHED\` (\`details: {limit, resource: "templates"}\`).`,
        tags,
        body: CreateTemplateBody,
        response: { 201: TemplateEnvelope, ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ status: 'success' as const, data: await templates.create(notesCallerOf(request), request.body) }),
  );

  app.get(
    '/templates/:id',
    {
      config: read,
      schema: {
        operationId: 'getTemplate',
        summary: 'A note template',
        description: "A built-in or one of the clinic's own; another clinic's → 403 `FORBIDDEN_TENANT`.",
        tags,
        params: TemplateIdParams,
        response: { 200: TemplateEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await templates.get(notesCallerOf(request), request.params.id) }),
  );

  app.patch(
    '/templates/:id',
    {
      config: manage,
      schema: {
        operationId: 'updateTemplate',
        summary: "Change a template's name or sections (administrator)",
        description:
          `Any of \`name\`, \`sections\` (the whole list); the slug never changes. ${VALIDATION} A built-in → 409 ` +
          '`TEMPLATE_BUILTIN`. Notes already made keep the template as it was when they were made.',
        tags,
        params: TemplateIdParams,
        body: UpdateTemplateBody,
        response: { 200: TemplateEnvelope, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => ({
      status: 'success' as const,
      data: await templates.update(notesCallerOf(request), request.params.id, request.body),
    }),
  );

  app.delete(
    '/templates/:id',
    {
      config: manage,
      schema: {
        operationId: 'deleteTemplate',
        summary: 'Delete a template (administrator)',
        description:
          "A built-in → 409 `TEMPLATE_BUILTIN`. When it was the clinic's `default_template`, the default goes back " +
          'to `padrao`. Notes made with it keep it.',
        tags,
        params: TemplateIdParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await templates.remove(notesCallerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
