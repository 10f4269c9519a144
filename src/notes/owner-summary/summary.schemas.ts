import { z } from 'zod';
import { SUMMARY_MAX_CHARACTERS } from './summary-text.ts';

// The owner summary's wire shapes (docs/notes-owner-summary.md).

export const SUMMARY_FLAG_REASONS = ['ungrounded', 'too_long', 'drafting_unavailable', 'drafting_invalid'] as const;

export const SummaryReviewFlagSchema = z
  .object({
    reason: z.enum(SUMMARY_FLAG_REASONS).meta({
      description:
        'Why the plain-language rewrite was not used and the text built from the note was: `ungrounded` (the rewrite stated ' +
        '`token`, a number, dose, unit, frequency, duration, drug or side not in the signed note), `too_long` (over ' +
        `${SUMMARY_MAX_CHARACTERS} characters), \`drafting_unavailable\` (the drafting server could not be used), \`drafting_invalid\` ` +
        '(its answer was unusable)',
    }),
    token: z.string().nullable(),
  })
  .meta({ id: 'OwnerSummaryReviewFlag' });

export const SummaryDeliverySchema = z
  .object({
    message_id: z.uuid().meta({ description: "The CRM chat message's id" }),
    contact_id: z.uuid(),
    status: z.enum(['queued', 'sent', 'failed']).meta({
      description: "The CRM message's delivery, as last seen: `queued` until the messaging provider took it or gave up",
    }),
    sent_at: z.string().nullable(),
  })
  .meta({ id: 'OwnerSummaryDelivery' });

export const ApprovedBySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    license: z.string().trim().min(1).max(50).meta({ description: 'The veterinarian\'s CRMV, e.g. "CRMV-SP 12345"' }),
  })
  .meta({ id: 'OwnerSummaryApprover' });

export const SummarySchema = z
  .object({
    id: z.uuid(),
    note_id: z.uuid(),
    version: z.int().meta({ description: 'Each POST writes the next version; reads, edits, approval and sending act on the newest' }),
    text: z.string(),
    characters: z.int().meta({ description: `Characters of \`text\` (at most ${SUMMARY_MAX_CHARACTERS})` }),
    style: z.enum(['standard', 'plain']),
    review_flags: z.array(SummaryReviewFlagSchema),
    status: z.enum(['draft', 'approved']),
    content_sha256: z.string().nullable().meta({ description: 'Hex SHA-256 of the UTF-8 text, set at approval' }),
    approved_by: ApprovedBySchema.nullable(),
    approved_at: z.string().nullable(),
    deliveries: z.array(SummaryDeliverySchema).meta({ description: 'Each send, oldest first' }),
  })
  .meta({ id: 'OwnerSummary', description: '"Orientações ao tutor": the visit in plain words for the tutor, built from the note' });

export const SummaryEnvelope = z.object({ status: z.literal('success'), data: SummarySchema }).meta({ id: 'OwnerSummaryResponse' });

export const CreateSummaryBody = z
  .strictObject({
    style: z
      .enum(['standard', 'plain'])
      .default('standard')
      .meta({
        description:
          '`standard` (default): built from the note, no language model. `plain`: rewritten in plainer words by the drafting ' +
          'server (422 when none is configured), used only when it states nothing the note does not; otherwise the ' +
          '`standard` text with a review flag saying why',
      }),
  })
  .nullish()
  .meta({ id: 'OwnerSummaryCreate', description: 'Optional: no body is `{"style": "standard"}`' });

export const EditSummaryBody = z
  .strictObject({
    text: z
      .string()
      .trim()
      .min(1)
      .max(SUMMARY_MAX_CHARACTERS)
      .meta({ description: `The vet's text (1-${SUMMARY_MAX_CHARACTERS} characters), grounded in the note` }),
  })
  .meta({ id: 'OwnerSummaryEdit' });

export const ApproveSummaryBody = z.strictObject({ approved_by: ApprovedBySchema }).meta({ id: 'OwnerSummaryApprove' });

export const SendSummaryBody = z
  .strictObject({
    contact: z
      .strictObject({
        external_id: z.string().trim().min(1).max(100).nullish(),
        phone: z.string().trim().min(1).max(40).nullish(),
        name: z.string().trim().min(1).max(200).nullish(),
      })
      .optional()
      .meta({ description: "The tutor to send to, instead of the note's `tutor`" }),
  })
  .nullish()
  .meta({ id: 'OwnerSummarySend', description: "Optional: no body sends to the note's tutor" });

export const SentSummaryEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.object({
      message_id: z.uuid(),
      contact_id: z.uuid(),
      chat_id: z.uuid(),
      status: z.literal('queued'),
    }),
  })
  .meta({ id: 'OwnerSummarySent' });

export type SummaryBody = z.infer<typeof SummarySchema>;
export type SummaryReviewFlag = z.infer<typeof SummaryReviewFlagSchema>;
