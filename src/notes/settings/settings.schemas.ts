import { z } from 'zod';
import { ReferenceRangesPatchSchema, ReferenceRangesSchema } from '../vitals/reference-ranges.schemas.ts';
import { CrmLinkPatchSchema, CrmLinkSchema, OwnerSummaryTemplateSchema } from './crm-link.schemas.ts';
import { DrugNamesSchema, TimezoneSchema } from './plan-settings.schemas.ts';

const AudioRetentionDays = z
  .int()
  .min(0)
  .max(3650)
  .meta({
    description:
      'Days after a note completes that its recording is deleted by the daily retention run (0 = at the first run ' +
      'after completion: "delete the audio after transcription"); null (the default) = kept. The note, its transcript, ' +
      'sections and exports stay; `GET /notes/{id}/audio` then answers 410 `AUDIO_EXPIRED` and the note shows ' +
      '`audio.deleted_at`. Failed notes keep their recording (a retry needs it).',
  });

// Optional lines of the profile: absent or null → not printed; a blank string is refused (it prints nothing
// either, and probably means a form field left empty by mistake).
const profileLine = (max: number, description: string) => z.string().trim().min(1).max(max).nullable().optional().meta({ description });

/** The clinic as its printed record names it: the heading of the PDF prontuário (docs/notes-prontuario.md). */
export const ClinicProfileSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .meta({ description: "The clinic's name as printed", example: 'Clínica Veterinária São Francisco' }),
    address: profileLine(300, 'Street address, city and state'),
    phone: z
      .string()
      .trim()
      .min(1)
      .max(40)
      .regex(/^[0-9+()\-. ]+$/, 'digits, spaces and + ( ) - . only')
      .nullable()
      .optional()
      .meta({ description: 'Digits, spaces and + ( ) - . only', example: '+55 (11) 3456-7890' }),
    crmv_registration: profileLine(50, "The clinic's registration with its regional council (CRMV-UF)"),
  })
  .meta({ id: 'ClinicProfile', description: 'The clinic as the PDF record prints it; absent lines are not printed' });

/** As the API shows it: every line present, null when not set. */
const ClinicProfileBody = z
  .object({
    name: z.string(),
    address: z.string().nullable(),
    phone: z.string().nullable(),
    crmv_registration: z.string().nullable(),
  })
  .meta({ id: 'ClinicProfileSettings' });

export const SettingsSchema = z
  .object({
    default_template: z.string().meta({
      description: 'Slug of the template a note is written in when its upload names none (`padrao` until changed)',
    }),
    reference_ranges: ReferenceRangesSchema,
    audio_retention_days: AudioRetentionDays.nullable(),
    clinic_profile: ClinicProfileBody.nullable().meta({
      description: 'The clinic as the PDF record prints it (its heading); null until set — the record then shows no clinic heading',
    }),
    timezone: z.string().meta({ description: TimezoneSchema.meta()?.description }),
    drug_names: z.array(z.string()).meta({ description: DrugNamesSchema.meta()?.description }),
    crm_link: CrmLinkSchema,
    owner_summary_template: OwnerSummaryTemplateSchema,
  })
  .meta({ id: 'NotesSettings', description: "The clinic's Notes settings; each has a default until an administrator changes it" });

export const SettingsEnvelope = z.object({ status: z.literal('success'), data: SettingsSchema }).meta({ id: 'NotesSettingsResponse' });

/** Only what is sent changes; an unknown setting is refused (a misspelt name must not be ignored). */
export const SettingsPatchBody = z
  .strictObject({
    default_template: z.string().trim().min(1).max(50).optional(),
    reference_ranges: ReferenceRangesPatchSchema.optional(),
    audio_retention_days: AudioRetentionDays.nullable().optional(),
    clinic_profile: ClinicProfileSchema.nullable()
      .optional()
      .meta({ description: 'Replaces the whole profile (lines left out become null); null removes it' }),
    timezone: TimezoneSchema.optional(),
    drug_names: DrugNamesSchema.optional(),
    crm_link: CrmLinkPatchSchema.optional(),
    owner_summary_template: OwnerSummaryTemplateSchema.optional(),
  })
  .meta({ id: 'NotesSettingsUpdate' });

export type SettingsPatch = z.infer<typeof SettingsPatchBody>;
export type Settings = z.infer<typeof SettingsSchema>;
