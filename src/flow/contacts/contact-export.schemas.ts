import { z } from 'zod';
import { CONTACT_AUDIT_ACTIONS, LEAD_STATUSES } from '../../platform/db/schema/index.ts';
import { TimestampSchema, UuidSchema } from '../../platform/http/schemas.ts';
import { ContactProjection } from './contact.schemas.ts';

// The data subject export (GET …/contacts/{id}/export): everything the CRM holds about one contact,
// as one JSON document — the answer to LGPD Art. 18 access and portability (docs/privacy.md).

const nullableTime = TimestampSchema.nullable();

const ExportMessage = z.object({
  id: UuidSchema,
  kind: z.string().describe('`satisfaction_survey` for a survey'),
  body: z.string(),
  reason: z.string().nullable(),
  status: z.enum(['queued', 'sent', 'failed']),
  provider: z.string().nullable(),
  provider_message_id: z.string().nullable(),
  sent_at: nullableTime,
  created_at: TimestampSchema,
});

export const ContactExport = z
  .object({
    contact: ContactProjection.extend({
      legacy_id: z.int().nullable().describe("The old CRM's numeric id of this person, if any"),
      deleted_at: nullableTime.describe('Set when the contact was soft-deleted (its data is still held, and exported)'),
    }),
    pets: z.array(
      z.object({
        id: UuidSchema,
        name: z.string(),
        species: z.string(),
        breed: z.string().nullable(),
        birth_date: z.iso.date().nullable(),
        created_at: TimestampSchema,
      }),
    ),
    leads: z.array(
      z.object({
        id: UuidSchema,
        stage_id: UuidSchema,
        stage_name: z.string(),
        status: z.enum(LEAD_STATUSES),
        survey_sent_at: nullableTime,
        finished_at: nullableTime,
        created_at: TimestampSchema,
        updated_at: TimestampSchema,
      }),
    ),
    chats: z.array(z.object({ id: UuidSchema, channel: z.string(), created_at: TimestampSchema, messages: z.array(ExportMessage) })),
    surveys: z
      .array(
        z.object({
          message_id: UuidSchema,
          lead_id: UuidSchema.nullable(),
          chat_id: UuidSchema,
          reason: z.string().nullable(),
          status: z.enum(['queued', 'sent', 'failed']),
          sent_at: nullableTime,
          created_at: TimestampSchema,
        }),
      )
      .describe('The satisfaction surveys sent to the contact (their messages are also under `chats`)'),
    audit_logs: z
      .array(
        z.object({
          id: UuidSchema,
          action: z.enum(CONTACT_AUDIT_ACTIONS),
          api_key_prefix: z.string(),
          changes: z.record(z.string(), z.object({ before: z.unknown(), after: z.unknown() })),
          warnings: z.array(z.string()),
          request_id: z.string(),
          ip: z.string().nullable().describe("The calling system's address, not the contact's"),
          created_at: TimestampSchema,
        }),
      )
      .describe('Every external write of the contact still kept (AUDIT_RETENTION_DAYS), oldest first'),
    exported_at: TimestampSchema,
  })
  .meta({ id: 'ContactExport' });

export type ContactExportDocument = z.infer<typeof ContactExport>;
