import { z } from 'zod';
import { NOTE_HISTORY_EVENTS } from '../../platform/db/schema/index.ts';
import { errorResponses, TimestampSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { NoteIdParams } from '../store/note.schemas.ts';
import type { HistoryService } from './history.service.ts';

const HistoryEventSchema = z
  .object({
    event: z.enum(NOTE_HISTORY_EVENTS),
    at: TimestampSchema,
    key_id: z.uuid().nullable().meta({ description: 'The key that did it; null for what the worker did (completed, failed)' }),
    key_name: z.string().nullable().meta({ description: "The key's name when the event was recorded" }),
    request_id: z.string().nullable().meta({ description: 'The X-Request-Id of the request; null for the worker' }),
    details: z.record(z.string(), z.unknown()).meta({
      description:
        '`created`: `{}`. `completed`: `{note_style, review_flags}` (how many). `failed`: `{code}`. `section_edited`: ' +
        '`{section_id, before, after}` (each `{title, label, content, order}`). `retried`: `{}`. `signed`: `{signed_by, ' +
        'flags_acknowledged, open_flags, content_sha256}`. `amended`: `{amendment_id, section_id, label, reason, signed_by, ' +
        'content_sha256, previous_sha256}`. `exported`: `{format}`. `audio_fetched`: `{range}` (the Range header served, or ' +
        "null for the whole file). `audio_deleted` (worker, no key): `{retention_days}`, the clinic's audio retention " +
        'deleted the recording. Reads never carry transcript or section text.',
    }),
  })
  .meta({ id: 'NoteHistoryEvent' });

const HistoryEnvelope = z.object({ status: z.literal('success'), data: z.array(HistoryEventSchema) }).meta({ id: 'NoteHistoryResponse' });

export async function historyRoutes(app: AppInstance, { history }: { history: HistoryService }) {
  app.get(
    '/notes/:id/history',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'getNoteHistory',
        summary: 'Who did what to a note, oldest first',
        description:
          'Every write (created, completed, failed, section_edited, retried, signed, amended, audio_deleted) and every export ' +
          'and audio fetch of the note, with the key (id and name), the request id and the time. A refused request records nothing.',
        tags: ['Notes'],
        params: NoteIdParams,
        response: { 200: HistoryEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await history.list(notesCallerOf(request), request.params.id) }),
  );
}
