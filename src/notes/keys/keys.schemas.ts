import { z } from 'zod';
import { PageMetaSchema, pageQuery, TimestampSchema } from '../../platform/http/schemas.ts';
import { PERMISSIONS, ROLES } from '../callers.ts';

const DaySchema = z.iso.date().meta({ example: '2026-11-01', description: 'UTC day, YYYY-MM-DD' });

export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    permissions: z
      .array(z.enum(PERMISSIONS))
      .min(1)
      .refine((list) => new Set(list).size === list.length, 'permissions must not repeat')
      .optional()
      .meta({
        description:
          "`notes:read`, `notes:write`, `keys:manage`. Optional when `role` is given: the key then gets the role's " +
          'permissions (viewer: `notes:read`; editor: `notes:read`, `notes:write`; administrator: all three).',
      }),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({
        description:
          "ISO 8601; must be in the future. Never later than the creating key's own expiry: a later or missing value " +
          'is capped to it (`expires_at_capped` in the answer).',
      }),
    role: z
      .enum(ROLES)
      .optional()
      .meta({ description: 'Defaults to the least role that covers the permissions. Alone, it gives the role its permissions.' }),
  })
  .strict()
  .refine((body) => body.permissions !== undefined || body.role !== undefined, {
    message: 'give permissions, a role, or both',
    path: ['permissions'],
  })
  .meta({
    id: 'CreateApiKeyRequest',
    description:
      'At least one of `permissions` and `role`: `{"name": "Recepção", "role": "viewer"}` makes a read-only key, as does ' +
      '`{"name": "Recepção", "permissions": ["notes:read"]}`.',
  });

export const ApiKeyRecord = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().meta({ description: 'The first 8 characters of the key' }),
    role: z.enum(ROLES),
    permissions: z.array(z.enum(PERMISSIONS)),
    status: z.enum(['active', 'expired', 'revoked', 'disabled']),
    expires_at: TimestampSchema.nullable(),
    last_used_at: TimestampSchema.nullable().meta({ description: 'Updated within a few seconds of use' }),
    revoked_at: TimestampSchema.nullable(),
    created_by_key_id: z.uuid().nullable().meta({ description: 'The key that created this one; null when the operator did' }),
    created_at: TimestampSchema,
  })
  .meta({ id: 'ApiKey' });

export const CreatedApiKeyEnvelope = z
  .object({
    status: z.literal('success'),
    data: ApiKeyRecord.extend({
      expires_at_capped: z.boolean().meta({
        description: "true when `expires_at` was lowered (or set) to the creating key's own expiry, the latest a key it creates may have",
      }),
      key: z.string().meta({ description: 'The key itself: shown once, never again' }),
    }),
  })
  .meta({ id: 'CreatedApiKeyResponse' });

export const ApiKeyEnvelope = z
  .object({
    status: z.literal('success'),
    data: ApiKeyRecord.extend({
      revoked_key_ids: z.array(z.uuid()).meta({
        description:
          'The keys this call revoked: the key itself (first) unless it was revoked already, and every key below it that was ' +
          'still unrevoked (the keys it created, the keys those created, ...). Empty when there was nothing left to revoke.',
      }),
    }),
  })
  .meta({ id: 'ApiKeyResponse' });

/** How many active keys (neither revoked, disabled nor expired) a clinic may hold. */
export const ACTIVE_KEY_LIMIT = 500;

/** The default page covers the active-key cap; revoked and expired keys are listed too, so a long history takes more pages. */
export const ApiKeyListQuery = pageQuery(ACTIVE_KEY_LIMIT, ACTIVE_KEY_LIMIT);

export const ApiKeyListEnvelope = z
  .object({ status: z.literal('success'), data: z.array(ApiKeyRecord), meta: PageMetaSchema })
  .meta({ id: 'ApiKeyListResponse' });

export const KeyIdParams = z.object({ id: z.uuid() });

export const UsageQuery = z
  .object({
    from: DaySchema.optional(),
    to: DaySchema.optional(),
    days: z.coerce.number().int().min(1).max(366).optional().meta({ description: 'The last N days up to today; default 30' }),
  })
  .refine((query) => !(query.days !== undefined && (query.from || query.to)), {
    message: 'use either days or from/to',
    path: ['days'],
  });

const StatusCounts = z.record(z.string(), z.int()).meta({ example: { '2xx': 120, '4xx': 3 } });
const UsageTotals = z.object({ requests: z.int(), by_status: StatusCounts });

export const UsageEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.object({
      key_id: z.uuid(),
      from: DaySchema,
      to: DaySchema,
      last_used_at: TimestampSchema.nullable(),
      totals: UsageTotals,
      days: z.array(UsageTotals.extend({ date: DaySchema })),
      endpoints: z.array(UsageTotals.extend({ endpoint: z.string().meta({ example: 'GET /notes/:id' }) })),
    }),
  })
  .meta({ id: 'ApiKeyUsageResponse' });
