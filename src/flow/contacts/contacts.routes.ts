import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { parseBody } from '../http/body.ts';
import { WorkspaceParams } from '../http/params.ts';
import { keyCaller } from '../request-context.ts';
import { ContactProjection, ContactUpsertBody, toProjection, UpsertResponse } from './contact.schemas.ts';
import { externalContactsService } from './contacts.service.ts';
import { contactUpserter } from './upsert.service.ts';

const ContactParams = WorkspaceParams.extend({ contact_id: UuidSchema });
const tags = ['CRM external: contacts'];

/** `/external/workspaces/{workspace_id}/contacts`: registered inside `externalApi` (bearer auth, rate limit). */
export async function externalContactRoutes(app: AppInstance) {
  const { db } = app.vetflow.database;
  const upsertContact = contactUpserter(db);
  const contacts = externalContactsService(db);

  app.put(
    '/workspaces/:workspace_id/contacts',
    {
      config: { access: { crmScope: 'contacts:write' } },
      attachValidation: true,
      schema: {
        operationId: 'upsertContact',
        summary: 'Create, update or restore a contact',
        description:
          'Matches by external_id, then document, then phone (normalised), soft-deleted contacts included. No match → ' +
          'create (name and phone required) → 201 `created`; an active match → 200 `updated`; a deleted match → restored ' +
          'and updated → 201 `restored`. Under the workspace sync policy `flow`, a name or phone a CRM user edited is kept ' +
          'and a warning says so. Invalid data, unknown fields or `legacy_id` → 400 with `details.field` and ' +
          '`details.reason` (not 422). Duplicate phone or external_id → 409 with `details.conflicting_contact_id`. ' +
          'Every success is audited in the same transaction.',
        tags,
        params: WorkspaceParams,
        body: ContactUpsertBody,
        response: { 200: UpsertResponse, 201: UpsertResponse, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const raw = request.body as unknown;
      if (raw && typeof raw === 'object' && 'legacy_id' in raw) {
        throw new AppError('LEGACY_ID_NOT_ACCEPTED', 'legacy_id cannot be set through the external API', {
          field: 'legacy_id',
          reason: 'not accepted',
        });
      }
      const input = parseBody(ContactUpsertBody, raw);
      const result = await upsertContact(keyCaller(request), input, { requestId: request.id, ip: request.ip });
      return reply.code(result.action === 'updated' ? 200 : 201).send({
        contact: toProjection(result.contact),
        action: result.action,
        matched_by: result.matchedBy,
        warnings: result.warnings,
      });
    },
  );

  app.get(
    '/workspaces/:workspace_id/contacts/:contact_id',
    {
      config: { access: { crmScope: 'contacts:read' } },
      schema: {
        operationId: 'getContact',
        summary: 'Read a contact (limited projection)',
        description: 'Never pets or the legacy id. A deleted or missing contact → 404 CONTACT_NOT_FOUND; a malformed id → 400.',
        tags,
        params: ContactParams,
        response: { 200: ContactProjection, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => toProjection(await contacts.getContact(keyCaller(request), request.params.contact_id)),
  );

  app.delete(
    '/workspaces/:workspace_id/contacts/:contact_id',
    {
      config: { access: { crmScope: 'contacts:delete' } },
      schema: {
        operationId: 'deleteContact',
        summary: 'Soft-delete a contact',
        description:
          'Idempotent: 204 also when the contact is already deleted (each success is audited). An id the workspace never ' +
          'had → 404. A later upsert matching the contact restores it.',
        tags,
        params: ContactParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await contacts.deleteContact(keyCaller(request), request.params.contact_id, { requestId: request.id, ip: request.ip });
      return reply.code(204).send(null);
    },
  );
}
