import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { errorBodyOf } from '../../platform/http/error-handler.ts';
import { idempotencyKeyOf } from '../../platform/http/idempotency-key.ts';
import { errorResponses, toTimestamp, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { WorkspaceParams } from '../http/params.ts';
import { parseInput } from '../http/parse-input.ts';
import { keyCaller } from '../request-context.ts';
import {
  BATCH_MAX_ITEMS,
  ContactBatchBody,
  ContactBatchEnvelope,
  ContactBatchResult,
  ContactChangesPage,
  ContactChangesQuery,
  ContactErased,
  ContactProjection,
  ContactUpsertBody,
  toProjection,
  UpsertResponse,
} from './contact.schemas.ts';
import type { ContactChangesService } from './contact-changes.service.ts';
import { ContactExport } from './contact-export.schemas.ts';
import type { ContactExportService } from './contact-export.service.ts';
import { parseContactUpsert } from './contact-input.ts';
import type { ExternalContactsService } from './contacts.service.ts';
import type { ContactErasureService } from './erasure.service.ts';
import type { BatchItemResult, ContactUpserter } from './upsert.service.ts';

const ContactParams = WorkspaceParams.extend({ contact_id: UuidSchema });
const tags = ['CRM external: contacts'];

/** `/external/workspaces/{workspace_id}/contacts`: registered inside `externalApi` (bearer auth, rate limit). */
export async function externalContactRoutes(
  app: AppInstance,
  {
    upserter,
    contacts,
    changes,
    erasure,
    contactExport,
  }: {
    upserter: ContactUpserter;
    contacts: ExternalContactsService;
    changes: ContactChangesService;
    erasure: ContactErasureService;
    contactExport: ContactExportService;
  },
) {
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
          'A new external_id whose document or phone matched a contact that has another external_id takes that contact over ' +
          'with the warning `external_id_replaced` (the old value is in the audit entry), or, when the workspace setting ' +
          '`external_id_rekeying` is `refuse`, is refused with 409 `EXTERNAL_ID_CONFLICT` naming the contact. ' +
          'Every success is audited in the same transaction.',
        tags,
        params: WorkspaceParams,
        body: ContactUpsertBody,
        response: { 200: UpsertResponse, 201: UpsertResponse, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const input = parseContactUpsert(request.body);
      const result = await upserter.upsertContact(keyCaller(request), input);
      return reply.code(result.action === 'updated' ? 200 : 201).send({
        contact: toProjection(result.contact),
        action: result.action,
        matched_by: result.matchedBy,
        warnings: result.warnings,
      });
    },
  );

  app.post(
    '/workspaces/:workspace_id/contacts/batch',
    {
      config: { access: { crmScope: 'contacts:write' } },
      attachValidation: true,
      schema: {
        operationId: 'upsertContactsBatch',
        summary: 'Create, update or restore up to 100 contacts',
        description:
          `Up to ${BATCH_MAX_ITEMS} items, each exactly a PUT …/contacts body, upserted in request order with the PUT's rules ` +
          '(matching, phone normalisation, sync policy and warnings, 409 on duplicates, restore, one audit entry per written ' +
          'contact). Answers 200 with one result per item, in request order: the status the PUT would have answered (200, ' +
          '201, 400, 409) and either its `contact_id`, `action`, `matched_by`, `warnings` or its `error` body. A failed item ' +
          'writes nothing and spoils no other. Two items identifying one contact apply one after the other: the second ' +
          'updates what the first wrote. Whole-request errors (auth, scope, workspace, billing, malformed JSON, an empty list ' +
          `or more than ${BATCH_MAX_ITEMS} items) answer as usual. \`Idempotency-Key\` replays the whole answer for 24 h. ` +
          'A batch counts as one request against the request limit and its items against the per-minute item budget ' +
          '(`X-RateLimit-Items-{Limit,Remaining,Reset}-Minute`; over it → 429, nothing written).',
        tags,
        params: WorkspaceParams,
        body: ContactBatchBody,
        response: { 200: ContactBatchResult, ...errorResponses(400, 401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const { contacts: items } = parseInput(ContactBatchEnvelope, request.body);
      const result = await upserter.batchUpsert(keyCaller(request), { items, idempotencyKey: idempotencyKeyOf(request) });
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply
        .code(200)
        .headers(result.headers)
        .send({ results: result.body.results.map(batchItemBody) });
    },
  );

  app.get(
    '/workspaces/:workspace_id/contacts/changes',
    {
      config: { access: { crmScope: 'contacts:read' } },
      attachValidation: true,
      schema: {
        operationId: 'listContactChanges',
        summary: 'Follow the contact change feed',
        description:
          'Every contact created, updated (by an API key: `erp`; by a CRM user: `crm_user`), deleted, restored or erased ' +
          'after `cursor`, oldest first, one entry per version: what happened (`change`), the contact as it was then (null ' +
          'once deleted or erased) and the fields that changed. An erased contact appears once as `erased`, and its earlier ' +
          'versions hold no personal value any more (name and phone `[erased]`, the rest null). Without a cursor, from the ' +
          'first change still kept. Every page, an empty one included, returns `next_cursor` to resume from and `has_more`. To follow the feed: read ' +
          'pages, passing each `next_cursor` as the next `cursor`, until `has_more` is false; that page is the end of what ' +
          'has committed so far. Keep its `next_cursor` and poll again later from it. A change becomes ' +
          'visible once every transaction older than it has finished, so a change that commits late is never skipped. ' +
          'Changes are kept CONTACT_CHANGES_RETENTION_DAYS (default 30) days: a cursor from before changes it had not read ' +
          'were pruned → 410 `CURSOR_EXPIRED` with `details.oldest_cursor`; resync (read every contact again, e.g. through ' +
          'your own list or GET …/contacts/{id}), then follow the feed from `oldest_cursor`, which returns every change still ' +
          'kept. A malformed cursor → 400.',
        tags,
        params: WorkspaceParams,
        querystring: ContactChangesQuery,
        response: { 200: ContactChangesPage, ...errorResponses(400, 401, 403, 410, 429) },
      },
    },
    async (request) => {
      const query = parseInput(ContactChangesQuery, request.query, 'query');
      const page = await changes.listContactChanges(keyCaller(request), query);
      return {
        data: page.changes.map((change) => ({
          contact_id: change.contactId,
          change: change.change,
          contact: change.contact as z.infer<typeof ContactProjection> | null,
          deleted: change.deleted,
          source: change.source,
          changed_fields: change.changedFields,
          changed_at: toTimestamp(change.changedAt),
        })),
        next_cursor: page.nextCursor,
        has_more: page.hasMore,
      };
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

  app.post(
    '/workspaces/:workspace_id/contacts/:contact_id/erase',
    {
      config: { access: { crmScope: 'contacts:erase' } },
      schema: {
        operationId: 'eraseContact',
        summary: 'Erase a contact (LGPD right to erasure)',
        description:
          'Anonymises the contact for good, active or soft-deleted: its name, phone, email, document, address, external id, ' +
          "source and picture, its pets' names, its chat messages, and the values in its audit entries and earlier " +
          'change-feed versions are removed (null) or replaced by the fixed marker `[erased]`. Then the contact reads 404, ' +
          'no upsert can match it (a later upsert with the same phone creates a new contact), and the change feed shows one ' +
          '`erased` version for it. Leads, chats and survey marks stay, without personal values. The erasure is audited ' +
          'without personal data. Erasing an erased contact changes nothing and answers the first erasure (same ' +
          '`erased_at`). An id the workspace never had → 404. Needs the `contacts:erase` scope.',
        tags,
        params: ContactParams,
        response: { 200: ContactErased, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const erased = await erasure.eraseContact(keyCaller(request), request.params.contact_id);
      return { erased: true as const, contact_id: erased.contactId, erased_at: toTimestamp(erased.erasedAt) };
    },
  );

  app.get(
    '/workspaces/:workspace_id/contacts/:contact_id/export',
    {
      config: { access: { crmScope: 'contacts:read' } },
      schema: {
        operationId: 'exportContact',
        summary: 'Export everything held about a contact (LGPD access and portability)',
        description:
          'One JSON document: the contact (with its legacy id and, if soft-deleted, when), its pets, leads, chats with their ' +
          'messages, satisfaction surveys and audit entries still kept. A soft-deleted contact is exported too (its data is ' +
          'still held); an erased or unknown one → 404.',
        tags,
        params: ContactParams,
        response: { 200: ContactExport, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => contactExport.exportContact(keyCaller(request), request.params.contact_id),
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
          'had, or an erased contact → 404. A later upsert matching the contact restores it (to remove it for good: erase it).',
        tags,
        params: ContactParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await contacts.deleteContact(keyCaller(request), request.params.contact_id);
      return reply.code(204).send(null);
    },
  );
}

/** A batch item's outcome as the wire shows it: the single PUT's answer fields, or its error body. */
function batchItemBody(item: BatchItemResult): z.output<typeof ContactBatchResult>['results'][number] {
  // Answers stored before the outcome was kept in this plain form (24 h of Idempotency-Key replays
  // across an upgrade) are already in the wire form.
  if ('contact_id' in item || ('error' in item && 'request_id' in item.error)) return item as never;
  if ('error' in item) {
    const { code, message, details, requestId } = item.error;
    return { index: item.index, status: item.status, error: errorBodyOf(new AppError(code, message, details), requestId) };
  }
  const { index, status, contactId, action, matchedBy, warnings } = item;
  return { index, status, contact_id: contactId, action, matched_by: matchedBy, warnings };
}
