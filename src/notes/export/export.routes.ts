import { z } from 'zod';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { NoteIdParams } from '../store/note.schemas.ts';
import type { ExportService } from './export.service.ts';

// Any string (or a repeated parameter), not z.enum: a bad format must be a 400 (see export.service.ts).
const ExportQuery = z.object({
  format: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .meta({ description: '`txt` (default), `rtf` or `pdf`, once; anything else → 400 INVALID_PARAMETER', example: 'rtf' }),
});

const Download = z.string().meta({ description: 'The file; named in Content-Disposition' });

export async function exportRoutes(app: AppInstance, { exports }: { exports: ExportService }) {
  app.get(
    '/notes/:id/export',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'exportNote',
        summary: 'A completed note as a TXT, RTF or PDF download',
        description:
          'Patient header (name, gender, date, external id) and every section in order. TXT is UTF-8; RTF has blue bold ' +
          "sans-serif titles and serif section text, each section in its own colour. PDF is the patient record's layout for " +
          'this one note (A4, clinic heading, signature and amendments in place, hash footer; docs/notes-prontuario.md). ' +
          '422 NOTE_NOT_COMPLETED before completion.',
        tags: ['Notes'],
        params: NoteIdParams,
        querystring: ExportQuery,
        response: {
          200: {
            description: 'The exported note',
            content: {
              'text/plain': { schema: Download },
              'application/rtf': { schema: Download },
              'application/pdf': { schema: Download.meta({ format: 'binary' }) },
            },
          },
          ...errorResponses(400, 401, 403, 404, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const file = await exports.exportNote(notesCallerOf(request), request.params.id, request.query.format);
      // Patient data: no shared cache may keep a copy.
      return reply
        .type(file.contentType)
        .header('content-disposition', file.disposition)
        .header('cache-control', 'private, no-store')
        .send(file.body as never);
    },
  );
}
