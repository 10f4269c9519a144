import { z } from 'zod';
import { PageMetaSchema, pageQuery } from '../../platform/http/schemas.ts';
import { SECTION_LABELS } from '../../providers/sectioning/port.ts';

const BASE_LABELS_TEXT = SECTION_LABELS.map((label) => `\`${label}\``).join(', ');

export const TemplateSlugSchema = z
  .string()
  .regex(/^[a-z0-9-]{1,50}$/, 'must be 1-50 of a-z, 0-9 and -')
  .meta({ description: 'Unique in the clinic (built-ins included): 1-50 of `[a-z0-9-]`', example: 'dermatologia' });

const TemplateSectionInput = z
  .object({
    label: z
      .string()
      .regex(/^[a-z0-9_]{1,50}$/, 'must be 1-50 of a-z, 0-9 and _')
      .meta({ description: "The note section's `label`: 1-50 of `[a-z0-9_]`, unique in the template", example: 'lesoes' }),
    title: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .meta({ description: "The note section's `title` (pt-BR), 1-100 characters", example: 'Lesões' }),
    includes: z.array(z.enum(SECTION_LABELS)).meta({
      description:
        `The base labels this section gathers (${BASE_LABELS_TEXT}); every base label must be in exactly one ` +
        'section of the template. `[]`: a section only the drafter writes (clinical notes), from its instructions.',
    }),
    instructions: z.string().trim().max(2000).nullable().optional().meta({
      description: 'What the drafter should write there (content, tone, detail); at most 2,000 characters; null or absent for none',
    }),
  })
  .strict()
  .meta({ description: 'A section of the template' });

/** 1-20 sections with distinct labels; the base-label coverage is checked by the service (template-coverage.ts). */
const TemplateSectionsInput = z
  .array(TemplateSectionInput)
  .min(1)
  .max(20)
  .superRefine((sections, context) => {
    const seen = new Set<string>();
    sections.forEach((section, index) => {
      if (seen.has(section.label)) context.addIssue({ code: 'custom', path: [index, 'label'], message: 'label repeated in the template' });
      seen.add(section.label);
    });
  })
  .meta({ description: 'In display order, 1-20 sections' });

export const CreateTemplateBody = z
  .object({
    slug: TemplateSlugSchema,
    name: z.string().trim().min(1).max(100).meta({ description: '1-100 characters', example: 'Dermatologia' }),
    sections: TemplateSectionsInput,
  })
  .strict()
  .meta({ id: 'CreateNoteTemplateRequest' });

export const UpdateTemplateBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    sections: TemplateSectionsInput.optional(),
  })
  .strict()
  .meta({ id: 'UpdateNoteTemplateRequest', description: 'Only what is sent changes; the slug never does' });

export type TemplateSectionsInput = z.infer<typeof TemplateSectionsInput>;
export type CreateTemplateInput = z.infer<typeof CreateTemplateBody>;
export type UpdateTemplateInput = z.infer<typeof UpdateTemplateBody>;

export const TemplateSchema = z
  .object({
    id: z.uuid().meta({ description: 'UUID v4; fixed for the built-ins, the same on every server' }),
    slug: z.string().meta({ example: 'soap' }),
    name: z.string().meta({ example: 'SOAP' }),
    builtin: z.boolean().meta({ description: '`padrao` and `soap`: shared by every clinic, never changed or deleted' }),
    sections: z.array(
      z
        .object({
          label: z.string(),
          title: z.string(),
          includes: z.array(z.enum(SECTION_LABELS)),
          instructions: z.string().nullable(),
        })
        .meta({ id: 'NoteTemplateSection' }),
    ),
  })
  .meta({
    id: 'NoteTemplate',
    description:
      'An ordered list of note sections. A verbatim note places each transcript sentence, by its base label, in the ' +
      'section that gathers that label (in transcript order); a clinical note is drafted section by section, with ' +
      "each section's instructions.",
  });

export const TemplateEnvelope = z.object({ status: z.literal('success'), data: TemplateSchema }).meta({ id: 'NoteTemplateResponse' });
export const TemplateListEnvelope = z
  .object({ status: z.literal('success'), data: z.array(TemplateSchema), meta: PageMetaSchema })
  .meta({ id: 'NoteTemplateListResponse' });

/** How many templates of its own a clinic may hold (the built-ins do not count). */
export const TEMPLATE_LIMIT = 200;
/** The list's default (and largest) page: the built-ins and every template a clinic may hold, so a client sending no paging parameters gets them all. */
export const TEMPLATE_LIST_LIMIT = 250;
export const TemplateListQuery = pageQuery(TEMPLATE_LIST_LIMIT, TEMPLATE_LIST_LIMIT);
export const TemplateIdParams = z.object({ id: z.uuid() });
