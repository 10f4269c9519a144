import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { idempotencyKeyOf } from '../../platform/http/idempotency-key.ts';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import type { RetryService } from './retry.service.ts';

const RetryAccepted = z
  .object({ status: z.literal('success'), data: z.object({ id: z.uuid(), transcription_status: z.literal('pending') }) })
  .meta({ id: 'RetryAccepted' });

const common = {
  tags: ['Notes'],
  description:
    'Only a failed note: its failure is cleared and it is processed again. A retry counts against the monthly quota like an upload of ' +
    'the same audio (403 `QUOTA_EXCEEDED`), and a note can be retried a limited number of times (422 `NOTE_RETRY_LIMIT`; ' +
    'NOTE_MAX_RETRIES, 3 by default). `Idempotency-Key` is honoured (24 h): a replay is not counted again. A signed note ' +
    'is locked: 409 `NOTE_SIGNED`, before any other state check. A failed note whose recording is gone cannot be ' +
    "transcribed again: 410 `AUDIO_EXPIRED` (deleted by the clinic's audio retention, `details.deleted_at`) or 404 " +
    '`AUDIO_NOT_FOUND` (no longer in storage); nothing is charged or written. A live note is transcribed again from its ' +
    'stored parts (joined into one file or not): every part must still be in storage.',
  response: { 202: RetryAccepted, ...errorResponses(400, 401, 403, 404, 409, 410, 422, 429) },
};

export async function retryRoutes(app: AppInstance, { retries: notes }: { retries: RetryService }) {
  app.post(
    '/notes/:noteId/retry',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: { operationId: 'retryNote', ...common, summary: 'Reprocess a failed note', params: z.object({ noteId: UuidSchema }) },
    },
    async (request, reply) => {
      const result = await notes.retry(notesCallerOf(request), {
        noteId: request.params.noteId,
        idempotencyKey: idempotencyKeyOf(request),
      });
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(202).send(result.body);
    },
  );

  app.post(
    '/transcripts/retry',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        ...common,
        operationId: 'retryTranscript',
        summary: 'Reprocess a failed note (by body)',
        // A malformed id is a 400, as in the path of /notes/{noteId}/retry (docs/notes-reads.md), not a
        // schema 422: the body schema takes any string and the handler checks it.
        body: z
          .object({ note_id: z.string().meta({ format: 'uuid', description: 'The failed note to reprocess' }) })
          .meta({ id: 'TranscriptRetryRequest' }),
      },
    },
    async (request, reply) => {
      const noteId = UuidSchema.safeParse(request.body.note_id);
      if (!noteId.success) {
        throw new AppError('INVALID_PARAMETER', 'note_id must be a UUID', { field: 'note_id', reason: 'not a UUID' });
      }
      const result = await notes.retry(notesCallerOf(request), { noteId: noteId.data, idempotencyKey: idempotencyKeyOf(request) });
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(202).send(result.body);
    },
  );
}
