// The body of PUT /notes/{id}/plan: a whole plan, as the note shows it, validated by the Plan
// contract's own fields. What follows from the note rather than from the vet is not taken from the
// body but set again (docs/notes-plan.md, "Replacing the plan"): `evidence` null (no audio said the
// client's words), `computed_total` from the note's weight (as the extraction computes it), `due_date` from the visit date and
// `due_in_days`; `id` kept when sent (a UUID, unique in the plan), given when not. So a fetched plan
// can be sent back as it is, with one field changed.

import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { addDays, computedTotal, type PlanContext } from '../plan/extract-plan.ts';
import { ExamSchema, FollowUpSchema, MedicationSchema, type Plan, VaccineSchema } from '../store/plan.schemas.ts';
import { TimeRangeSchema } from '../store/time-range.schemas.ts';

const sentFields = {
  id: MedicationSchema.shape.id.optional().meta({ description: 'Kept when sent (unique in the plan); a new UUID when absent' }),
  evidence: TimeRangeSchema.nullable()
    .optional()
    .meta({ description: 'Accepted so a fetched plan can be sent back; stored as null (no audio said the words sent)' }),
};

const MedicationInput = z.strictObject({
  ...MedicationSchema.shape,
  ...sentFields,
  computed_total: MedicationSchema.shape.computed_total
    .optional()
    .meta({ description: "Accepted and recomputed: the per-kg dose times the weight among the note's vitals" }),
});
const ExamInput = z.strictObject({ ...ExamSchema.shape, ...sentFields });
const VaccineInput = z.strictObject({ ...VaccineSchema.shape, ...sentFields });
const FollowUpInput = z.strictObject({
  ...FollowUpSchema.shape,
  ...sentFields,
  due_date: FollowUpSchema.shape.due_date
    .optional()
    .meta({ description: "Accepted and recomputed: the note's `visit_date` + `due_in_days` (null when that is null)" }),
});

export const PlanReplaceBody = z
  .strictObject({
    medications: z.array(MedicationInput).max(100),
    exams: z.array(ExamInput).max(100),
    vaccines: z.array(VaccineInput).max(100),
    follow_ups: z.array(FollowUpInput).max(100),
  })
  .meta({
    id: 'PlanReplace',
    description:
      'The whole plan (every list, `[]` for none; at most 100 items each), fields as in `Plan`; an unknown field → 422. ' +
      '`id` is kept when sent, given when absent; `evidence` is stored as null; `computed_total` and `due_date` are ' +
      "computed again from the note's weight and visit date.",
  });

export type PlanReplace = z.infer<typeof PlanReplaceBody>;

/** The plan to store: ids kept or given (a repeated id → 422), derived fields set from `context`. */
export function planOfInput(input: PlanReplace, context: PlanContext): Plan {
  const seen = new Map<string, string>();
  const idOf = (id: string | undefined, field: string) => {
    if (id === undefined) return randomUUID();
    const lower = id.toLowerCase();
    const first = seen.get(lower);
    if (first !== undefined) {
      throw new AppError('VALIDATION_ERROR', `Invalid ${field}: the same id as ${first}`, { field, reason: `the same id as ${first}` });
    }
    seen.set(lower, field);
    return lower;
  };
  return {
    medications: input.medications.map((item, i) => ({
      ...item,
      id: idOf(item.id, `medications.${i}.id`),
      evidence: null,
      computed_total: computedTotal(item.dose_value, item.dose_unit, context.weightKg),
    })),
    exams: input.exams.map((item, i) => ({ ...item, id: idOf(item.id, `exams.${i}.id`), evidence: null })),
    vaccines: input.vaccines.map((item, i) => ({ ...item, id: idOf(item.id, `vaccines.${i}.id`), evidence: null })),
    follow_ups: input.follow_ups.map((item, i) => ({
      ...item,
      id: idOf(item.id, `follow_ups.${i}.id`),
      evidence: null,
      due_date: item.due_in_days === null ? null : addDays(context.visitDate, item.due_in_days),
    })),
  };
}
