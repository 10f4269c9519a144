import { z } from 'zod';
import { CONTACT_AUDIT_ACTIONS } from '../../platform/db/schema/index.ts';
import { metaOf, pageOf } from '../../platform/http/pagination.ts';
import { errorResponses, TimestampSchema, toTimestamp, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { sessionCaller } from '../request-context.ts';
import type { AuditService } from './audit-trail.service.ts';
import { PageMeta, PageQuery } from './crm-contacts.routes.ts';

const AuditEntry = z
  .object({
    id: UuidSchema,
    action: z.enum(CONTACT_AUDIT_ACTIONS),
    api_key_id: UuidSchema.nullable(),
    api_key_prefix: z.string(),
    changes: z
      .record(z.string(), z.object({ before: z.unknown(), after: z.unknown() }))
      .describe('`{field: {before, after}}` per changed field'),
    warnings: z.array(z.string()),
    request_id: z.string(),
    ip: z.string().nullable(),
    created_at: TimestampSchema,
  })
  .meta({ id: 'ContactAuditEntry' });

export async function auditRoutes(app: AppInstance, { audit }: { audit: AuditService }) {
  app.get(
    '/api/workspaces/:workspace_id/contacts/:contact_id/audit-logs',
    {
      config: { access: { crmSessionRole: 'administrator' } },
      schema: {
        operationId: 'listContactAuditLogs',
        summary: "A contact's external API audit trail",
        description:
          'One entry per successful external PUT/DELETE, newest first, kept AUDIT_RETENTION_DAYS (90) days. Administrators only.',
        tags: ['CRM contacts'],
        params: z.object({ workspace_id: UuidSchema, contact_id: UuidSchema }),
        querystring: PageQuery,
        response: { 200: z.object({ data: z.array(AuditEntry), meta: PageMeta }), ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { rows, total } = await audit.readTrail(sessionCaller(request), request.params.workspace_id, request.params.contact_id, page);
      return {
        data: rows.map((row) => ({
          id: row.id,
          action: row.action,
          api_key_id: row.apiKeyId,
          api_key_prefix: row.apiKeyPrefix,
          changes: row.changes,
          warnings: row.warnings,
          request_id: row.requestId,
          ip: row.ip,
          created_at: toTimestamp(row.createdAt),
        })),
        meta: metaOf(page, total),
      };
    },
  );
}
