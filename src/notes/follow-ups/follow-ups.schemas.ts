import { z } from 'zod';
import { FOLLOW_UP_KINDS, VisitDateSchema } from '../store/plan.schemas.ts';
import { SpeciesSchema } from '../store/vitals.schemas.ts';

export const FollowUpsQuery = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(10),
    due_from: VisitDateSchema.optional().meta({ description: 'First due day, inclusive (`YYYY-MM-DD`); absent = no lower bound' }),
    due_to: VisitDateSchema.optional().meta({ description: 'Last due day, inclusive (`YYYY-MM-DD`); absent = no upper bound' }),
  })
  // Checked here so the answer is the same 422 VALIDATION_ERROR, with the field, as a malformed date.
  .refine((query) => !query.due_from || !query.due_to || query.due_from <= query.due_to, {
    message: 'due_to is before due_from',
    path: ['due_to'],
  });

export type FollowUpsRange = z.infer<typeof FollowUpsQuery>;

const DueFollowUpSchema = z
  .object({
    note_id: z.uuid(),
    external_id: z.string().nullable().meta({ description: "The note's `external_id`: the patient in the caller's system" }),
    name: z.string().meta({ description: "The note's patient name" }),
    species: SpeciesSchema.nullable(),
    kind: z.enum(FOLLOW_UP_KINDS),
    due_date: VisitDateSchema,
    text: z.string().meta({ description: 'The words of the follow-up, as said (or as the veterinarian wrote them)' }),
  })
  .meta({ id: 'DueFollowUp', description: "A follow-up of a note's plan, with its patient, for a reminder" });

export const FollowUpsEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.array(DueFollowUpSchema),
    meta: z.object({ total: z.int(), page: z.int(), limit: z.int(), total_pages: z.int() }),
  })
  .meta({ id: 'FollowUpListResponse' });
