// Reference ranges a vital is flagged against: the shipped defaults (docs/notes-vitals.md says
// where they come from) and a clinic's overrides (`PATCH /notes/v1/settings` `reference_ranges`).
// Inclusive bounds; a bound that is null or absent is no bound. A species without a row for a
// code gets no flag for it. Pure: the settings service stores overrides, processing applies them.

import { type Comparator, SPECIES, type Species, type VitalCode, type VitalFlag } from '../store/vitals.schemas.ts';

/** body_condition_score has one range per scale, since 3/5 and 3/9 are different bodies. */
export const RANGE_KEYS = [
  'temperature',
  'weight',
  'heart_rate',
  'respiratory_rate',
  'capillary_refill_time',
  'dehydration',
  'body_condition_score_9',
  'body_condition_score_5',
] as const;
export type RangeKey = (typeof RANGE_KEYS)[number];

export interface Range {
  min: number | null;
  max: number | null;
}
export type SpeciesRanges = Partial<Record<RangeKey, Range>>;
export type ReferenceRanges = Partial<Record<Species, SpeciesRanges>>;
/** As stored: per code, the bounds the clinic set (a bound left out is the default's). */
export type RangeOverrides = Partial<Record<Species, Partial<Record<RangeKey, { min?: number | null; max?: number | null }>>>>;
/** As patched: null for a code (or a species) removes the clinic's override. */
export type RangesPatch = Partial<Record<Species, Partial<Record<RangeKey, { min?: number | null; max?: number | null } | null>> | null>>;

const range = (min: number | null, max: number | null): Range => ({ min, max });

/** Every species, and a note whose species is unknown. */
const EVERY_SPECIES: SpeciesRanges = {
  dehydration: range(null, 5),
  body_condition_score_9: range(4, 5),
  body_condition_score_5: range(3, 3),
};

export const DEFAULT_RANGES: Record<Species, SpeciesRanges> = Object.fromEntries(
  SPECIES.map((species) => [species, { ...EVERY_SPECIES }]),
) as Record<Species, SpeciesRanges>;
Object.assign(DEFAULT_RANGES.canine, {
  temperature: range(37.5, 39.2),
  heart_rate: range(60, 160),
  respiratory_rate: range(10, 30),
  capillary_refill_time: range(null, 2),
});
Object.assign(DEFAULT_RANGES.feline, {
  temperature: range(37.8, 39.2),
  heart_rate: range(140, 220),
  respiratory_rate: range(20, 40),
  capillary_refill_time: range(null, 2),
});
Object.assign(DEFAULT_RANGES.equine, {
  temperature: range(37.2, 38.3),
  heart_rate: range(28, 44),
  respiratory_rate: range(8, 16),
  capillary_refill_time: range(null, 2),
});
Object.assign(DEFAULT_RANGES.bovine, {
  temperature: range(38.0, 39.3),
  heart_rate: range(48, 84),
  respiratory_rate: range(26, 50),
  capillary_refill_time: range(null, 2),
});

/** The ranges in force for every species: the defaults with the clinic's overrides over them. */
export function effectiveRanges(overrides: RangeOverrides): Record<Species, SpeciesRanges> {
  const ranges = {} as Record<Species, SpeciesRanges>;
  for (const species of SPECIES) {
    const own: SpeciesRanges = {};
    for (const key of RANGE_KEYS) {
      const fallback = DEFAULT_RANGES[species][key];
      const override = overrides[species]?.[key];
      const min = override && 'min' in override ? (override.min ?? null) : (fallback?.min ?? null);
      const max = override && 'max' in override ? (override.max ?? null) : (fallback?.max ?? null);
      if (min !== null || max !== null) own[key] = range(min, max);
    }
    ranges[species] = own;
  }
  return ranges;
}

/**
 * The overrides after a patch: a code sent replaces the clinic's override of it (a bound left out
 * is the default's), null (or `{}`) removes it, null for a species removes all of its overrides.
 * Throws a RangeError naming the field when a range would end below its start.
 */
export function patchOverrides(current: RangeOverrides, patch: RangesPatch): RangeOverrides {
  const next: RangeOverrides = structuredClone(current);
  for (const [species, codes] of Object.entries(patch) as [Species, RangesPatch[Species]][]) {
    if (codes === undefined) continue;
    if (codes === null) {
      delete next[species];
      continue;
    }
    const own = { ...next[species] };
    for (const [key, bounds] of Object.entries(codes) as [RangeKey, { min?: number | null; max?: number | null } | null | undefined][]) {
      if (bounds === undefined) continue;
      if (bounds === null || Object.keys(bounds).length === 0) delete own[key];
      else own[key] = { ...bounds };
    }
    if (Object.keys(own).length > 0) next[species] = own;
    else delete next[species];
  }
  for (const species of SPECIES) {
    for (const [key, bounds] of Object.entries(effectiveRanges(next)[species])) {
      if (bounds.min !== null && bounds.max !== null && bounds.min > bounds.max) {
        throw new RangeError(`reference_ranges.${species}.${key}`);
      }
    }
  }
  return next;
}

export function rangeKeyOf(code: VitalCode, unit: string | null): RangeKey | null {
  if (code === 'mucous_membranes') return null;
  if (code === 'body_condition_score') return unit === '/5' ? 'body_condition_score_5' : 'body_condition_score_9';
  return code;
}

/**
 * The flag of a value against a range. A comparator narrows what can be said: "TPC < 2 s" is never
 * high, "TPC > 2 s" is high against a maximum of 2.
 */
export function flagAgainst(value: number, comparator: Comparator | null, bounds: Range | undefined): VitalFlag | null {
  if (!bounds) return null;
  const { min, max } = bounds;
  switch (comparator) {
    case '<': // below the value: low when even the value is at or under the minimum
      return min !== null && value <= min ? 'low' : null;
    case '<=':
      return min !== null && value < min ? 'low' : null;
    case '>':
      return max !== null && value >= max ? 'high' : null;
    case '>=':
      return max !== null && value > max ? 'high' : null;
    default:
      if (min !== null && value < min) return 'low';
      return max !== null && value > max ? 'high' : null;
  }
}

/** A vital's flag for the species (null: unknown, which gets the every-species rows only). */
export function flagOf(
  vital: { code: VitalCode; value: number | string; unit: string | null; comparator: Comparator | null },
  species: Species | null,
  ranges: Record<Species, SpeciesRanges>,
): VitalFlag | null {
  if (vital.code === 'mucous_membranes') return vital.value === 'normal' ? null : 'abnormal';
  const key = rangeKeyOf(vital.code, vital.unit);
  if (key === null || typeof vital.value !== 'number') return null;
  const bounds = species ? ranges[species][key] : EVERY_SPECIES[key];
  return flagAgainst(vital.value, vital.comparator, bounds);
}
