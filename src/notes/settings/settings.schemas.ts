import { z } from 'zod';
import { ReferenceRangesPatchSchema, ReferenceRangesSchema } from '../vitals/reference-ranges.schemas.ts';
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

export const SettingsSchema = z
  .object({
    default_template: z.string().meta({
      description: 'Slug of the template a note is written in when its upload names none (`padrao` until changed)',
    }),
    reference_ranges: ReferenceRangesSchema,
    audio_retention_days: AudioRetentionDays.nullable(),
    timezone: z.string().meta({ description: TimezoneSchema.meta()?.description }),
    drug_names: z.array(z.string()).meta({ description: DrugNamesSchema.meta()?.description }),
  })
  .meta({ id: 'NotesSettings', description: "The clinic's Notes settings; each has a default until an administrator changes it" });

export const SettingsEnvelope = z.object({ status: z.literal('success'), data: SettingsSchema }).meta({ id: 'NotesSettingsResponse' });

/** Only what is sent changes; an unknown setting is refused (a misspelt name must not be ignored). */
export const SettingsPatchBody = z
  .strictObject({
    default_template: z.string().trim().min(1).max(50).optional(),
    reference_ranges: ReferenceRangesPatchSchema.optional(),
    audio_retention_days: AudioRetentionDays.nullable().optional(),
    timezone: TimezoneSchema.optional(),
    drug_names: DrugNamesSchema.optional(),
  })
  .meta({ id: 'NotesSettingsUpdate' });

export type SettingsPatch = z.infer<typeof SettingsPatchBody>;
export type Settings = z.infer<typeof SettingsSchema>;
