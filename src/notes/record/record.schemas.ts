import { z } from 'zod';
import { TimestampSchema } from '../../platform/http/schemas.ts';
import { HashVersionSchema, SignerSchema } from '../store/note.schemas.ts';

export const SignBody = z
  .object({
    signed_by: SignerSchema,
    acknowledge_flags: z.boolean().optional().meta({
      description: 'Must be true to sign while review flags are open (409 REVIEW_FLAGS_OPEN otherwise); recorded with the signature',
    }),
  })
  .meta({ id: 'SignNoteRequest' });

export const AmendBody = z
  .object({
    // Any string, checked by the route: a malformed id is 400 INVALID_SECTION_ID, as on PATCH /note_sections.
    section_id: z.string().meta({ format: 'uuid', description: 'A section of this note (not a UUID → 400 INVALID_SECTION_ID)' }),
    content: z.string().min(1).max(20_000).meta({ description: "The section's new content" }),
    reason: z.string().trim().min(1).max(500).meta({ description: 'Why the signed note is corrected' }),
    signed_by: SignerSchema,
  })
  .meta({ id: 'AmendNoteRequest' });

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const AmendmentSchema = z
  .object({
    id: z.uuid(),
    note_id: z.uuid(),
    section_id: z.uuid(),
    label: z.string(),
    previous_content: z.string().meta({ description: 'The text this amendment replaced' }),
    content: z.string(),
    reason: z.string(),
    signed_by: SignerSchema,
    created_at: TimestampSchema,
    content_sha256: Sha256.meta({
      description:
        'Version 2: the hash of the note after this amendment together with its reason, signer, time and previous_sha256; ' +
        'version 1: of the sections after it and the original signature (docs/notes-record.md)',
    }),
    previous_sha256: Sha256.meta({
      description: "The hash before it: the previous amendment's content_sha256, or the signature's for the first",
    }),
    hash_version: HashVersionSchema,
  })
  .meta({ id: 'NoteAmendment', description: 'A correction of a signed note; append-only, never edited or removed' });

export const AmendmentEnvelope = z.object({ status: z.literal('success'), data: AmendmentSchema }).meta({ id: 'NoteAmendmentResponse' });
export const AmendmentListEnvelope = z
  .object({ status: z.literal('success'), data: z.array(AmendmentSchema) })
  .meta({ id: 'NoteAmendmentListResponse' });

export type SignInput = z.infer<typeof SignBody>;
export type AmendInput = z.infer<typeof AmendBody>;
