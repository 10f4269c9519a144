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
    .meta({
      description:
        '`txt` (default), `rtf`, `pdf`, `json` (the record with its hash chain) or `fhir` (FHIR R4), once; anything else → 400 INVALID_PARAMETER',
      example: 'rtf',
    }),
});

const Download = z.string().meta({ description: 'The file; named in Content-Disposition' });

export async function exportRoutes(app: AppInstance, { exports }: { exports: ExportService }) {
  app.get(
    '/notes/:id/export',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'exportNote',
        summary: 'A completed note as a TXT, RTF, PDF, JSON or FHIR R4 download',
        description:
          'Patient header (name, gender, date, external id) and every section in order. TXT is UTF-8; RTF has blue bold ' +
          "sans-serif titles and serif section text, each section in its own colour. PDF is the patient record's layout for " +
          'this one note (A4, clinic heading, signature and amendments in place, hash footer; docs/notes-prontuario.md). ' +
          '`json` is the record as a program ' +
          'reads it: the note as it stands and every link of its hash chain with what the link covered; `fhir` a FHIR R4 ' +
          '`Bundle` of type `document` (Composition, Patient, Practitioner, Encounter, Observations, the plan, Provenance per ' +
          'link). Both verify offline with `vetflow record verify FILE` (docs/notes-export.md). 422 NOTE_NOT_COMPLETED before completion.',
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
              'application/json': { schema: Download },
              'application/fhir+json': { schema: Download },
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
