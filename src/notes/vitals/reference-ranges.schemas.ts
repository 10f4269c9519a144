import { z } from 'zod';
import { SPECIES } from '../store/vitals.schemas.ts';
import { RANGE_KEYS } from './reference-ranges.ts';

// The `reference_ranges` setting: shown as the ranges in force for every species (the defaults
// with the clinic's overrides over them), patched per species and code (docs/notes-vitals.md).

const Bound = z.number().min(0).max(10_000).nullable();
const RangeSchema = z.object({ min: Bound, max: Bound }).meta({
  id: 'ReferenceRange',
  description: 'Inclusive bounds; null = no bound on that side',
});
const RANGE_KEYS_TEXT =
  '`temperature` (°C), `weight` (kg), `heart_rate` (bpm), `respiratory_rate` (/min), `capillary_refill_time` (s), ' +
  '`dehydration` (%), `body_condition_score_9` and `body_condition_score_5` (a score is judged on the scale it was said on)';

const objectOf = <T extends z.ZodType>(keys: readonly string[], value: T) =>
  Object.fromEntries(keys.map((key) => [key, value.optional()])) as Record<string, z.ZodOptional<T>>;

export const ReferenceRangesSchema = z.object(objectOf(SPECIES, z.object(objectOf(RANGE_KEYS, RangeSchema)))).meta({
  id: 'ReferenceRanges',
  description:
    "The ranges vitals are flagged against, per species, as in force: the shipped defaults with the clinic's overrides " +
    `over them. Codes: ${RANGE_KEYS_TEXT}. A code absent from a species has no range: its values are never flagged.`,
});

const RangePatch = z
  .strictObject({ min: Bound.optional(), max: Bound.optional() })
  .nullable()
  .meta({ description: "A bound left out keeps the default; null for the code removes the clinic's override (back to the default)" });

export const ReferenceRangesPatchSchema = z
  .strictObject(objectOf(SPECIES, z.strictObject(objectOf(RANGE_KEYS, RangePatch)).nullable()))
  .meta({
    id: 'ReferenceRangesUpdate',
    description:
      `Per species, per code (${RANGE_KEYS_TEXT}): \`{min?, max?}\` replaces the clinic's override of that code (a bound left ` +
      'out keeps the default, a null bound means no bound), null removes it; null for a species removes all its overrides. ' +
      'Codes and species not sent keep their ranges. A minimum above its maximum → 422. Notes already completed keep their flags.',
  });
