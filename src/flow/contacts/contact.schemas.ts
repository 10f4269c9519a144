import { z } from 'zod';
import { CONTACT_CHANGE_KINDS } from '../../platform/db/schema/index.ts';
import { ErrorBodySchema, TimestampSchema, toTimestamp, UuidSchema } from '../../platform/http/schemas.ts';
import type { ContactRow } from './contacts.repo.ts';

// The contact as the external API shows it (docs/flow-contacts.md): never pets, the legacy id or the
// "edited in flow" marks.
export const ContactProjection = z
  .object({
    id: UuidSchema,
    external_id: z.string().nullable(),
    document: z.string().nullable(),
    name: z.string(),
    phone: z.string().describe('E.164; Brazilian mobiles always with the ninth digit'),
    email: z.string().nullable(),
    address: z.string().nullable(),
    source: z.string().nullable(),
    profile_pic_url: z.string().nullable(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: 'Contact' });

export function toProjection(row: ContactRow): z.infer<typeof ContactProjection> {
  return {
    id: row.id,
    external_id: row.externalId,
    document: row.document,
    name: row.name,
    phone: row.phone,
    email: row.email,
    address: row.address,
    source: row.source,
    profile_pic_url: row.profilePicUrl,
    created_at: toTimestamp(row.createdAt),
    updated_at: toTimestamp(row.updatedAt),
  };
}

const notNull = (field: string) => (issue: { input?: unknown }) =>
  issue.input === null ? `${field} cannot be cleared (null is not allowed)` : undefined;

/** Limits on every text field (characters, after trimming). */
export const CONTACT_LIMITS = {
  external_id: 100,
  document: 50,
  name: 200,
  phone: 40,
  email: 254,
  address: 500,
  source: 100,
  profile_pic_url: 2048,
} as const;

const clearable = (field: keyof typeof CONTACT_LIMITS, description: string) =>
  z
    .string()
    .max(CONTACT_LIMITS[field])
    .nullable()
    .optional()
    .describe(`${description} Up to ${CONTACT_LIMITS[field]} characters; \`null\` or "" clears it.`);

export const ContactUpsertBody = z
  .strictObject({
    external_id: clearable('external_id', "The contact's id in the caller's system (opaque text). Identifier, matched first."),
    document: clearable('document', 'CPF/CNPJ or other document, compared as sent (trimmed). Identifier, matched second.'),
    phone: z
      .string({ error: notNull('phone') })
      .max(CONTACT_LIMITS.phone)
      .optional()
      .describe('Required to create. Parsed with default region BR and stored in E.164; identifier, matched third.'),
    name: z
      .string({ error: notNull('name') })
      .max(CONTACT_LIMITS.name)
      .optional()
      .describe('Required to create; 1-200 characters.'),
    email: clearable('email', 'Must look like an e-mail address.'),
    address: clearable('address', 'Free text.'),
    source: clearable('source', 'Where the contact came from (free text).'),
    profile_pic_url: clearable('profile_pic_url', 'An http(s) URL.'),
  })
  .describe(
    'At least one of external_id, document, phone. Absent fields are left as they are. Unknown fields, ' +
      '`legacy_id` and `null` for name or phone → 400.',
  )
  .meta({ id: 'ContactUpsert' });

export type ContactUpsert = z.infer<typeof ContactUpsertBody>;

export const UPSERT_WARNINGS = [
  'name_not_applied_user_edited_in_flow',
  'phone_not_applied_user_edited_in_flow',
  'external_id_replaced',
] as const;
export type UpsertWarning = (typeof UPSERT_WARNINGS)[number];

export const UpsertResponse = z
  .object({
    contact: ContactProjection,
    action: z.enum(['created', 'updated', 'restored']),
    matched_by: z.enum(['external_id', 'document', 'phone']).nullable(),
    warnings: z
      .array(z.enum(UPSERT_WARNINGS))
      .describe(
        '`name_not_applied_user_edited_in_flow` / `phone_not_applied_user_edited_in_flow`: a CRM user edited it and the sync ' +
          'policy is `flow`, so it was kept. `external_id_replaced`: the contact was matched by document or phone and had another ' +
          'external_id, which this request replaced (the old value is in the audit entry; the workspace setting ' +
          '`external_id_rekeying: refuse` refuses this with 409 `EXTERNAL_ID_CONFLICT` instead).',
      ),
  })
  .meta({ id: 'ContactUpsertResult' });

/** Items per batch upsert (HubSpot's batch size). */
export const BATCH_MAX_ITEMS = 100;

// The documented body; items are parsed one by one (each answered on its own), so the route
// checks only the envelope with ContactBatchEnvelope.
export const ContactBatchBody = z
  .strictObject({ contacts: z.array(ContactUpsertBody).min(1).max(BATCH_MAX_ITEMS) })
  .meta({ id: 'ContactBatchUpsert' });
export const ContactBatchEnvelope = z.strictObject({ contacts: z.array(z.unknown()).min(1).max(BATCH_MAX_ITEMS) });

export const ContactBatchResult = z
  .object({
    results: z.array(
      z
        .object({
          index: z.int().describe("The item's position in the request's `contacts` (0-based); results keep request order."),
          status: z.int().describe('The status a single PUT of this item would have answered: 200, 201, 400 or 409.'),
          contact_id: UuidSchema.optional(),
          action: UpsertResponse.shape.action.optional(),
          matched_by: UpsertResponse.shape.matched_by.optional(),
          warnings: UpsertResponse.shape.warnings.optional(),
          error: ErrorBodySchema.optional().describe('The error body the single PUT would have answered (status ≥ 400).'),
        })
        .meta({ id: 'ContactBatchItemResult' }),
    ),
  })
  .meta({ id: 'ContactBatchResult' });

export const ContactChangesQuery = z.object({
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe("A `next_cursor` from an earlier page, or a 410's `details.oldest_cursor`; absent: from the first change still kept."),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const ContactChangesPage = z
  .object({
    data: z.array(
      z
        .object({
          contact_id: UuidSchema,
          change: z
            .enum(CONTACT_CHANGE_KINDS)
            .describe('What this version is: the first, a later one, a deletion, a restore, or the erasure (then `contact` is null).'),
          contact: ContactProjection.nullable().describe('This version as GET …/contacts/{id} showed it; null once deleted or erased.'),
          deleted: z.boolean(),
          source: z.enum(['erp', 'crm_user']).describe('`erp`: an API key wrote it; `crm_user`: a CRM user edited it.'),
          changed_fields: z.array(z.string()).describe('API field names that changed; `deleted` for a delete or a restore.'),
          changed_at: TimestampSchema,
        })
        .meta({ id: 'ContactChange' }),
    ),
    next_cursor: z.string().describe('Pass it as `cursor` to read on; returned with every page, an empty one included.'),
    has_more: z
      .boolean()
      .describe(
        'true: more changes are ready now, read the next page at once. false: this page reached the end of what has ' +
          'committed so far (the feed is followed to its end); keep `next_cursor` and poll again later.',
      ),
  })
  .meta({ id: 'ContactChangesPage' });

export const ContactErased = z
  .object({
    erased: z.literal(true),
    contact_id: UuidSchema,
    erased_at: TimestampSchema.describe('When the contact was erased (the first erasure, for a repeated one)'),
  })
  .meta({ id: 'ContactErasure' });
