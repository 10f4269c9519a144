import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { fieldIssueOf } from '../../platform/field-issue.ts';
import { rejectUnstorable } from '../../platform/http/input-boundary.ts';
import { NoteStyleSchema } from '../store/note.schemas.ts';
import { VisitDateSchema } from '../store/plan.schemas.ts';
import { SpeciesSchema } from '../store/vitals.schemas.ts';

export const MetadataItemSchema = z.object({ key: z.string().min(1).max(50), value: z.string().min(1).max(500) });

export const UploadMetadataSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    gender: z.enum(['male', 'female', 'unidentified']).default('unidentified'),
    external_id: z.string().trim().min(1).max(100).nullish(),
    metadata: z.array(MetadataItemSchema).max(50).default([]),
    note_style: NoteStyleSchema.optional().meta({
      description:
        '`verbatim` or `clinical`; absent = the server default (`NOTE_STYLE`). `clinical` needs a drafting provider ' +
        '(422 when the server has none); any other value → 422. Kept when a failed note is retried.',
    }),
    species: SpeciesSchema.optional().meta({
      description:
        "The patient's species (`canine`, `feline`, `equine`, `bovine`, `caprine`, `ovine`, `lagomorph`, `avian`, `other`); " +
        'absent = detected in the transcript. Chooses the reference ranges the vitals are flagged against; any other value → 422.',
    }),
    template: z
      .string()
      .min(1)
      .max(50)
      .optional()
      .meta({
        description:
          "Slug of the template the note is written in (`GET /templates`: a built-in or one of the clinic's own); absent = " +
          "the clinic's `default_template` (settings). Unknown → 422 `TEMPLATE_NOT_FOUND`. The note keeps the template as " +
          'it is now: a retry uses it, later changes to the template never alter the note.',
      }),
    visit_date: VisitDateSchema.optional().meta({
      description:
        "The day of the consultation, `YYYY-MM-DD` (a real calendar day; anything else → 422); the plan's follow-ups " +
        "count their due dates from it. Absent = the day the note is created in the clinic's time zone (settings `timezone`).",
    }),
  })
  .meta({
    id: 'NoteUploadMetadata',
    description:
      'JSON text of the `metadata` part. `patient_name` is accepted for `name`; any other top-level string ' +
      '(e.g. `owner_name`) becomes a metadata item `{key, value}`. `note_style` chooses how the note is written, ' +
      '`template` in which sections, `species` the reference ranges of its vitals, `visit_date` the day its follow-ups count from.',
  });

export type UploadMetadata = z.infer<typeof UploadMetadataSchema>;

const KNOWN = new Set(['name', 'patient_name', 'gender', 'external_id', 'metadata', 'note_style', 'species', 'template', 'visit_date']);

/** Parses the `metadata` part: bad JSON → 400; a valid JSON that breaks the rules → 422 with the field. */
export function parseUploadMetadata(text: string | undefined): UploadMetadata {
  if (text === undefined) {
    throw new AppError('VALIDATION_ERROR', 'The metadata part is required', { field: 'metadata', reason: 'required' });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError('MALFORMED_JSON', 'The metadata part is not valid JSON', { field: 'metadata' });
  }
  return metadataFromObject(raw, 'metadata');
}

/**
 * The rules of the metadata part for an already parsed value (a live note's JSON body too):
 * `field` prefixes the names in errors (`metadata.name` in an upload, `name` in a JSON body).
 */
export function metadataFromObject(raw: unknown, field: 'metadata' | null): UploadMetadata {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AppError('VALIDATION_ERROR', `${field ?? 'The body'} must be a JSON object`, {
      field: field ?? 'body',
      reason: 'expected an object',
    });
  }
  // JSON escapes (\u0000, \ud800) only become unstorable text once parsed.
  rejectUnstorable(raw, 'body', field ?? undefined);
  const input = raw as Record<string, unknown>;
  const extras: { key: string; value: unknown }[] = Object.entries(input)
    .filter(([key]) => !KNOWN.has(key))
    .map(([key, value]) => ({ key, value }));
  for (const extra of extras) {
    if (typeof extra.value !== 'string') {
      throw new AppError('VALIDATION_ERROR', `${at(extra.key)} must be a string`, {
        field: at(extra.key),
        reason: 'expected a string',
      });
    }
  }
  const candidate = {
    name: input.name ?? input.patient_name,
    gender: input.gender,
    external_id: input.external_id,
    note_style: input.note_style,
    species: input.species,
    template: input.template,
    visit_date: input.visit_date,
    metadata: [...(Array.isArray(input.metadata) ? input.metadata : input.metadata === undefined ? [] : [input.metadata]), ...extras],
  };
  const parsed = UploadMetadataSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = fieldIssueOf(parsed.error.issues[0], 'name');
    throw new AppError('VALIDATION_ERROR', `Invalid ${at(issue.field)}: ${issue.reason}`, { field: at(issue.field), reason: issue.reason });
  }
  return parsed.data;
}
