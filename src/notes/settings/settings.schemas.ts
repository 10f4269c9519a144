import { z } from 'zod';
import { ReferenceRangesPatchSchema, ReferenceRangesSchema } from '../vitals/reference-ranges.schemas.ts';

export const SettingsSchema = z
  .object({
    default_template: z.string().meta({
      description: 'Slug of the template a note is written in when its upload names none (`padrao` until changed)',
    }),
    reference_ranges: ReferenceRangesSchema,
  })
  .meta({ id: 'NotesSettings', description: "The clinic's Notes settings; each has a default until an administrator changes it" });

export const SettingsEnvelope = z.object({ status: z.literal('success'), data: SettingsSchema }).meta({ id: 'NotesSettingsResponse' });

/** Only what is sent changes; an unknown setting is refused (a misspelt name must not be ignored). */
export const SettingsPatchBody = z
  .strictObject({
    default_template: z.string().trim().min(1).max(50).optional(),
    reference_ranges: ReferenceRangesPatchSchema.optional(),
  })
  .meta({ id: 'NotesSettingsUpdate' });

export type SettingsPatch = z.infer<typeof SettingsPatchBody>;
export type Settings = z.infer<typeof SettingsSchema>;
