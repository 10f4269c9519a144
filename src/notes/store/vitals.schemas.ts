import { z } from 'zod';

// What a note shows of the vitals said in its consultation (docs/notes-vitals.md). The codes live
// here, beside the Note schema, so the upload, the settings and the extraction share one list.

export const SPECIES = ['canine', 'feline', 'equine', 'bovine', 'caprine', 'ovine', 'lagomorph', 'avian', 'other'] as const;
export type Species = (typeof SPECIES)[number];

export const VITAL_CODES = [
  'temperature',
  'weight',
  'heart_rate',
  'respiratory_rate',
  'capillary_refill_time',
  'body_condition_score',
  'dehydration',
  'mucous_membranes',
] as const;
export type VitalCode = (typeof VITAL_CODES)[number];

export const MUCOUS_MEMBRANE_VALUES = ['normal', 'pale', 'hyperemic', 'icteric', 'cyanotic'] as const;
export type MucousMembranes = (typeof MUCOUS_MEMBRANE_VALUES)[number];

export const COMPARATORS = ['<', '<=', '>', '>='] as const;
export type Comparator = (typeof COMPARATORS)[number];

export const VITAL_FLAGS = ['low', 'high', 'abnormal'] as const;
export type VitalFlag = (typeof VITAL_FLAGS)[number];

export const SpeciesSchema = z.enum(SPECIES).meta({
  id: 'Species',
  description:
    "The patient's species: `canine`, `feline`, `equine`, `bovine`, `caprine`, `ovine`, `lagomorph` (rabbits), `avian`, " +
    "`other` (rodents, reptiles, ferrets, ...). Chooses the reference ranges a note's vitals are flagged against.",
});

export const VitalSchema = z
  .object({
    code: z.enum(VITAL_CODES),
    value: z.union([z.number(), z.enum(MUCOUS_MEMBRANE_VALUES)]).meta({
      description:
        'A number in `unit` (`heart_rate` and `respiratory_rate` are integers); for `mucous_membranes` one of ' +
        '`normal`, `pale`, `hyperemic`, `icteric`, `cyanotic`',
    }),
    unit: z
      .enum(['°C', 'kg', 'bpm', '/min', 's', '/5', '/9', '%'])
      .nullable()
      .meta({
        description:
          '`temperature` °C, `weight` kg (grams said are converted), `heart_rate` bpm, `respiratory_rate` /min, ' +
          '`capillary_refill_time` s, `body_condition_score` /5 or /9 as said (a bare score is /9), `dehydration` %, ' +
          '`mucous_membranes` null',
      }),
    comparator: z.enum(COMPARATORS).nullable().meta({
      description:
        'As said: "menor que", "abaixo de", "inferior a" → `<`; "até" → `<=`; "maior que", "acima de", "superior a" → `>`; null for a plain value',
    }),
    text: z.string().meta({ description: 'The words the value was read from, as transcribed (or as edited)' }),
    evidence: z.object({ start: z.number(), end: z.number() }).nullable().meta({
      description: 'Where in the audio it was said (seconds); null when the transcript had no timed segments or the vet edited the words',
    }),
    flag: z
      .enum(VITAL_FLAGS)
      .nullable()
      .meta({
        description:
          "`low`/`high`: outside the species' reference range (the clinic's, or the defaults); `abnormal`: mucous membranes " +
          'other than normal; null otherwise, or when the species has no range for the code. A flag never changes the value.',
      }),
  })
  .meta({ id: 'Vital', description: 'A vital sign said in the consultation, read deterministically from the transcript' });

export type Vital = z.infer<typeof VitalSchema>;
