import multipart from '@fastify/multipart';
import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { idempotencyKeyOf } from '../../platform/http/idempotency-key.ts';
import { LINGERING_CLOSE_NOTE } from '../../platform/http/lingering-close.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { notesTempDirs } from '../processing/temp-dir.ts';
import { CreatedNoteEnvelope } from '../store/note.schemas.ts';
import type { UploadService } from './create-note.service.ts';
import { receiveUpload } from './receive-upload.ts';
import { UploadMetadataSchema } from './upload-metadata.ts';

// The upload as clients send it, for the OpenAPI document only: the route reads the parts itself
// (receive-upload.ts, upload-metadata.ts), streaming the audio to disk, so Fastify validates no body.
const UploadBody = z
  .object({
    audio: z.string().meta({
      format: 'binary',
      description: 'The recording: mp3, wav, m4a or aac (decided from the bytes), 10-3600 s, at most 100 MB',
    }),
    metadata: UploadMetadataSchema,
  })
  .meta({
    description:
      'Two parts: the file `audio`, and `metadata`, JSON text (a plain text part, or a part with `Content-Type: application/json`).',
  });

export async function uploadRoutes(app: AppInstance, { upload }: { upload: UploadService }) {
  await app.register(multipart);
  // Where and how much of a request body is received are HTTP settings, read from the configuration.
  const { DATA_DIR, AUDIO_MAX_BYTES } = app.vetflow.config;
  const tmpDir = notesTempDirs({ DATA_DIR }).uploads;

  app.post(
    '/notes',
    {
      config: {
        access: { notesPermission: 'notes:write' },
        openapiBody: {
          contentType: 'multipart/form-data',
          schema: UploadBody,
          encoding: {
            audio: { contentType: 'audio/mpeg, audio/wav, audio/mp4, audio/aac, application/octet-stream' },
            metadata: { contentType: 'application/json' },
          },
        },
      },
      schema: {
        operationId: 'createNote',
        summary: 'Create a note from the audio of a consultation',
        description:
          '`multipart/form-data` with a file part `audio` (mp3, wav, m4a or aac, decided from the bytes; ' +
          `10-3600 s; at most \`AUDIO_MAX_BYTES\`, 100 MB by default: 413 \`AUDIO_TOO_LARGE\` as soon as the file passes it, ${LINGERING_CLOSE_NOTE}) and ` +
          'a text part `metadata` holding JSON: `{"name", "gender"?, ' +
          '"external_id"?, "metadata"?: [{"key","value"}], "note_style"?: "verbatim"|"clinical", "template"?: slug, "visit_date"?: "YYYY-MM-DD"}` (`patient_name` is accepted for `name`; other ' +
          'top-level strings become metadata items; an unknown `template` → 422 `TEMPLATE_NOT_FOUND`). The note starts `pending`; poll `GET /notes/{id}/status`. ' +
          'Send `Idempotency-Key` to make a retried upload return the first response (24 h, per clinic).',
        tags: ['Notes'],
        consumes: ['multipart/form-data'],
        response: { 201: CreatedNoteEnvelope, ...errorResponses(400, 401, 403, 409, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const caller = notesCallerOf(request);
      const idempotencyKey = idempotencyKeyOf(request);
      if (!request.isMultipart()) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the upload as multipart/form-data');
      }
      // A refused body (oversized, malformed, unstorable text) is answered while the rest of it is
      // still arriving: the platform reads and drops that rest for a bounded while, then closes the
      // connection (platform/http/lingering-close.ts).
      const received = await receiveUpload(request, tmpDir, AUDIO_MAX_BYTES);
      const result = await upload.create(caller, { upload: received, idempotencyKey });
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(result.statusCode as 201).send(result.body);
    },
  );
}
