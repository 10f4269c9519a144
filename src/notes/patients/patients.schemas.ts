import { z } from 'zod';
import { PageMetaSchema } from '../../platform/http/schemas.ts';
import { RecordStatusSchema } from '../store/note.schemas.ts';
import { FollowUpSchema, MedicationSchema, VisitDateSchema } from '../store/plan.schemas.ts';
import { SpeciesSchema, VitalSchema } from '../store/vitals.schemas.ts';

// A patient is the clinic's notes with one `external_id` (the ERP's id of the animal): there is no
// patient row to create or keep, so a patient exists while one of its notes does (docs/notes-patients.md).

export const ExternalIdParams = z.object({
  external_id: z.string().min(1).max(100).meta({ description: "The patient's id in your system, as sent with its notes" }),
});

const noteId = z.uuid().meta({ description: 'The note the item was read from' });

export const TimelineEntrySchema = z
  .object({
    note_id: z.uuid(),
    visit_date: VisitDateSchema.nullable(),
    record_status: RecordStatusSchema,
    diagnosis: z.string().nullable().meta({
      description: "The text of the note's diagnosis section (its template's section holding `diagnosis`); null when it has none",
    }),
    medications: z.array(MedicationSchema.extend({ note_id: noteId })),
    vitals: z.array(VitalSchema.extend({ note_id: noteId })),
    follow_ups: z.array(FollowUpSchema.extend({ note_id: noteId })),
  })
  .meta({ id: 'PatientVisit', description: 'One completed note of the patient: what was found, given and scheduled' });

export const PatientHistorySchema = z
  .object({
    external_id: z.string(),
    name: z.string().meta({ description: "The name on the patient's newest note" }),
    species: SpeciesSchema.nullable().meta({ description: 'The species of the newest note that has one' }),
    notes: z.int().meta({ description: "The clinic's notes of the patient, every status" }),
    first_visit: VisitDateSchema.nullable().meta({ description: 'The earliest visit date of a completed note' }),
    last_visit: VisitDateSchema.nullable().meta({ description: 'The latest visit date of a completed note' }),
    timeline: z.array(TimelineEntrySchema).meta({ description: 'One entry per completed note, newest visit first' }),
    weights: z
      .array(z.object({ visit_date: VisitDateSchema.nullable(), kg: z.number(), note_id: z.uuid() }))
      .meta({ description: "Every weight among the completed notes' vitals, oldest visit first (for a chart)" }),
    open_follow_ups: z.array(FollowUpSchema.extend({ note_id: noteId })).meta({
      description:
        "Follow-ups due today or later (in the clinic's time zone), and overdue ones with no later visit of the patient; " +
        'soonest first. Follow-ups without a due date ("se piorar") are not open items.',
    }),
  })
  .meta({ id: 'PatientHistory' });

export const PatientHistoryEnvelope = z
  .object({ status: z.literal('success'), data: PatientHistorySchema })
  .meta({ id: 'PatientHistoryResponse' });

export const PatientsQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(10),
  q: z.string().trim().min(1).max(100).optional().meta({
    description: 'Part of the name or of the external id; case- and accent-insensitive, `%` and `_` literal',
  }),
});
export type PatientsQuery = z.infer<typeof PatientsQuery>;

export const PatientSummarySchema = z
  .object({
    external_id: z.string(),
    name: z.string(),
    species: SpeciesSchema.nullable(),
    notes: z.int(),
    last_visit: VisitDateSchema.nullable().meta({ description: 'The latest visit date among its notes' }),
  })
  .meta({ id: 'PatientSummary' });

export const PatientsEnvelope = z
  .object({ status: z.literal('success'), data: z.array(PatientSummarySchema), meta: PageMetaSchema })
  .meta({ id: 'PatientListResponse' });
