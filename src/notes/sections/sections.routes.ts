import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { UpdatedNoteSectionSchema } from '../store/note.schemas.ts';
import type { SectionsService } from './sections.service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const SectionEditBody = z
  .object({
    title: z.string().trim().min(1).max(200),
    content: z.string().max(100_000),
    order: z
      .string()
      .regex(/^\d{1,6}$/, 'must be a whole-number string such as "1"')
      .meta({ description: 'Numeric string; sections are shown in this order' }),
    label: z.string().trim().min(1).max(50).optional(),
  })
  .meta({
    id: 'NoteSectionUpdate',
    description: 'The whole section: title, content and order are required, even to change one of them.',
  });

export async function sectionRoutes(app: AppInstance, { sections }: { sections: SectionsService }) {
  app.patch(
    '/note_sections',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'updateNoteSection',
        summary: 'Update one section of a note',
        description:
          'Query `section_id` (UUID, required). The body replaces the section: `title`, `content` and `order` are all ' +
          'required, also to change only one of them (send the others as the note shows them; `order` is a string such ' +
          'as "1"); `label` is optional. `updated_at` becomes the time of the update (whole seconds, cut: two updates ' +
          'within one second show the same time); previous versions are kept internally and the ' +
          "change (before/after) in the note's history. A signed note is locked: 409 `NOTE_SIGNED` (amend it instead). " +
          'Fetch the note, pick the section id, patch, fetch again.',
        tags: ['Notes'],
        querystring: z.object({
          section_id: z
            .string()
            .meta({ description: 'The section to update: a UUID from the note (anything else → 400 `INVALID_SECTION_ID`)' }),
        }),
        body: SectionEditBody,
        response: { 200: UpdatedNoteSectionSchema, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
      // The section id is checked before the body, as the description lists 400 for it first.
      preValidation: async (request) => {
        const id = (request.query as { section_id?: string }).section_id;
        if (!id || !UUID.test(id)) {
          throw new AppError('INVALID_SECTION_ID', 'section_id must be a UUID', { field: 'section_id', reason: 'not a UUID' });
        }
      },
    },
    async (request) => sections.edit(notesCallerOf(request), request.query.section_id.toLowerCase(), request.body),
  );
}
