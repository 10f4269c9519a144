import { z } from 'zod';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import type { ProntuarioService } from './prontuario.service.ts';
import { RECORD_FORMAT_NAMES, RECORD_FORMATS } from './record-formats.ts';

const RecordParams = z.object({
  external_id: z
    .string()
    .min(1)
    .max(100)
    .meta({ description: "The patient's id in the clinic's own system (the notes' `external_id`)", example: 'PAC-7' }),
});

const RecordQuery = z.object({
  format: z.enum(RECORD_FORMAT_NAMES).meta({
    description: `${RECORD_FORMAT_NAMES.map((name) => `\`${name}\``).join(' or ')}; anything else (or none) → 422 VALIDATION_ERROR`,
    example: 'pdf',
  }),
});

const Download = z.string().meta({ description: 'The file; named in Content-Disposition' });
const DownloadBytes = z.string().meta({ description: 'The PDF; named in Content-Disposition', format: 'binary' });

export async function prontuarioRoutes(app: AppInstance, { prontuario }: { prontuario: ProntuarioService }) {
  app.get(
    '/patients/:external_id/record',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'exportPatientRecord',
        summary: "A patient's whole record (prontuário) as one PDF, TXT or FHIR R4 file",
        description:
          'Every completed note of the patient (`external_id`) in your clinic, oldest first: date and time, sections, vitals, ' +
          'the plan as a receituário, the signature (name, CRMV, time, hash) and each amendment in place (the replaced text ' +
          'struck through, the new text, reason, who, when); drafts are marked "Rascunho" and never shown as signed. The PDF ' +
          'is A4 with the clinic\'s profile (`clinic_profile` in `/settings`), the patient and tutor, "página N de M" and the ' +
          "record's SHA-256 in every footer (docs/notes-prontuario.md). `fhir` is a FHIR R4 `collection` Bundle of each note's " +
          '`document` Bundle (docs/notes-export.md), every hash chain in it checked offline by `vetflow record verify FILE`. ' +
          "Each note's history gets an `exported` event. " +
          "404 PATIENT_NOT_FOUND when the clinic has no completed note of that patient (another clinic's patients included).",
        tags: ['Notes'],
        params: RecordParams,
        querystring: RecordQuery,
        response: {
          200: {
            description: 'The record',
            headers: {
              'content-disposition': {
                schema: { type: 'string' },
                description: 'attachment; filename="prontuario-<external_id>-<YYYY-MM-DD>.<ext>" (and filename*)',
              },
            },
            content: {
              [RECORD_FORMATS.pdf.contentType]: { schema: DownloadBytes },
              [RECORD_FORMATS.txt.contentType.split(';')[0] ?? 'text/plain']: { schema: Download },
              [RECORD_FORMATS.fhir.contentType]: { schema: Download },
            },
          },
          ...errorResponses(400, 401, 403, 404, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const file = await prontuario.exportRecord(notesCallerOf(request), request.params.external_id, request.query.format);
      // Patient data: no shared cache may keep a copy.
      return reply
        .type(file.contentType)
        .header('content-disposition', file.disposition)
        .header('cache-control', 'private, no-store')
        .send(file.body as never);
    },
  );
}
