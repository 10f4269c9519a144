import { z } from 'zod';
import { TimeRangeSchema } from './time-range.schemas.ts';

// The plan of a note (docs/notes-plan.md): what the veterinarian decided in the consultation —
// medications, exams, vaccines, follow-ups — read deterministically from the transcript, each item
// with the words it came from and when they were said. The codes live here, beside the Note schema,
// so the extraction, the API, the exports and the worklist share one list.

export const DOSE_UNITS = [
  'mg/kg',
  'mg',
  'ml/kg',
  'ml',
  'mcg/kg',
  'UI/kg',
  'UI',
  'g',
  'comprimido',
  'gota',
  'aplicação',
  'pipeta',
] as const;
export type DoseUnit = (typeof DOSE_UNITS)[number];

export const ROUTES = [
  'oral',
  'subcutaneous',
  'intramuscular',
  'intravenous',
  'topical',
  'otic',
  'ophthalmic',
  'transdermal',
  'inhaled',
  'rectal',
] as const;
export type Route = (typeof ROUTES)[number];

export const MEDICATION_STATUSES = ['prescribed', 'administered', 'suspended'] as const;

export const EXAM_CODES = [
  'cbc',
  'biochemistry',
  'urinalysis',
  'fecal',
  'ultrasound',
  'radiograph',
  'cytology',
  'culture',
  'ecg',
  'echocardiogram',
  'blood_pressure',
  'rapid_test',
  'pcr',
  'histopathology',
  'other',
] as const;
export type ExamCode = (typeof EXAM_CODES)[number];

export const VACCINE_CODES = [
  'v8_v10',
  'rabies',
  'feline_polyvalent',
  'kennel_cough',
  'giardia',
  'leishmaniasis',
  'felv',
  'equine_influenza',
  'tetanus',
  'other',
] as const;
export type VaccineCode = (typeof VACCINE_CODES)[number];

export const VACCINE_STATUSES = ['administered', 'prescribed'] as const;

export const FOLLOW_UP_KINDS = ['recheck', 'vaccine_booster', 'exam_result', 'procedure', 'other'] as const;
export type FollowUpKind = (typeof FOLLOW_UP_KINDS)[number];

/** A calendar day, `YYYY-MM-DD` (a real one: 2026-02-30 is refused): visit dates, due dates, the worklist's bounds. */
export const VisitDateSchema = z.iso.date().meta({ example: '2026-12-07' });

const itemFields = {
  id: z.uuid(),
  text: z.string().min(1).max(2000).meta({ description: 'The words the item was read from, as transcribed (or as edited)' }),
  evidence: TimeRangeSchema.nullable().meta({
    description:
      'Where in the audio the words were said (seconds); null when the transcript had no timed segments, or the item ' +
      'comes from an edited section or from `PUT /plan`',
  }),
};

export const MedicationSchema = z
  .object({
    ...itemFields,
    drug: z
      .string()
      .min(1)
      .max(100)
      .meta({ description: 'The drug as said, lower case without accents: "carprofeno", "rimadyl", "amoxicilina com clavulanato"' }),
    dose_value: z.number().positive().nullable().meta({ description: 'The dose as said (never converted); null when not said' }),
    dose_unit: z.enum(DOSE_UNITS).nullable().meta({ description: 'The unit of `dose_value` as said; null when not said' }),
    route: z
      .enum(ROUTES)
      .nullable()
      .meta({
        description:
          'As said (VO → oral, SC → subcutaneous, IM, IV, ...) or implied by the form: comprimido → oral, colírio → ' +
          'ophthalmic, gotas no ouvido → otic, pomada/shampoo → topical; null when neither',
      }),
    interval_hours: z.number().positive().nullable().meta({
      description: 'a cada 12 h / 2× ao dia / BID → 12; SID / 1× ao dia → 24; TID / 3× ao dia → 8; dose única or not said → null',
    }),
    duration_days: z
      .number()
      .positive()
      .nullable()
      .meta({ description: 'por duas semanas → 14, por um mês → 30; null when not said or uso contínuo' }),
    status: z.enum(MEDICATION_STATUSES).meta({
      description: '`prescribed` for home, `administered` in the clinic during the visit, `suspended` (stopped) in this visit',
    }),
    computed_total: z.object({ value: z.number(), unit: z.string() }).nullable().meta({
      description:
        "A per-kg dose times the weight among the note's vitals (1 mg/kg × 32.4 kg = 32.4 mg); null without a per-kg dose or a weight",
    }),
  })
  .meta({ id: 'PlanMedication', description: 'A drug prescribed, administered or suspended in this visit' });

export const ExamSchema = z
  .object({
    ...itemFields,
    code: z.enum(EXAM_CODES).meta({
      description:
        '`cbc` hemograma, `biochemistry` bioquímico, `urinalysis` urinálise, `fecal` parasitológico, `ultrasound`, ' +
        '`radiograph` raio-x, `cytology`, `culture` cultura e antibiograma, `ecg`, `echocardiogram`, `blood_pressure`, ' +
        '`rapid_test` testes rápidos, `pcr`, `histopathology` biópsia, `other`',
    }),
  })
  .meta({ id: 'PlanExam', description: 'An exam ordered or done in this visit (not an old result being discussed)' });

export const VaccineSchema = z
  .object({
    ...itemFields,
    code: z.enum(VACCINE_CODES),
    status: z.enum(VACCINE_STATUSES).meta({ description: '`administered` now, or `prescribed` (scheduled)' }),
  })
  .meta({ id: 'PlanVaccine', description: 'A vaccine administered in this visit or scheduled' });

export const FollowUpSchema = z
  .object({
    ...itemFields,
    kind: z.enum(FOLLOW_UP_KINDS),
    due_in_days: z.number().int().nonnegative().nullable().meta({
      description: '"em 15 dias" → 15, "duas semanas" → 14, "48 horas" → 2, "um mês" → 30, "um ano" → 365; "se piorar" → null',
    }),
    due_date: z.iso
      .date()
      .nullable()
      .meta({ description: "`YYYY-MM-DD`: the note's visit date + `due_in_days`; null when `due_in_days` is null" }),
  })
  .meta({ id: 'PlanFollowUp', description: 'A recheck, booster, exam result to bring or scheduled procedure' });

export const PlanSchema = z
  .object({
    medications: z.array(MedicationSchema).max(100),
    exams: z.array(ExamSchema).max(100),
    vaccines: z.array(VaccineSchema).max(100),
    follow_ups: z.array(FollowUpSchema).max(100),
  })
  .meta({
    id: 'Plan',
    description:
      'What the veterinarian decided in the consultation, read deterministically from the transcript (docs/notes-plan.md); ' +
      'each list `[]` when empty',
  });

export type PlanMedication = z.infer<typeof MedicationSchema>;
export type PlanExam = z.infer<typeof ExamSchema>;
export type PlanVaccine = z.infer<typeof VaccineSchema>;
export type PlanFollowUp = z.infer<typeof FollowUpSchema>;
export type Plan = z.infer<typeof PlanSchema>;

export const EMPTY_PLAN: Plan = { medications: [], exams: [], vaccines: [], follow_ups: [] };
