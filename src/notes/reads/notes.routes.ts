import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { NoteEnvelope, NoteIdParams, StatusResultSchema } from '../store/note.schemas.ts';
import { ListNotesQuery, NoteListEnvelope } from './list-notes.ts';
import type { NotesService } from './notes.service.ts';

const TranscriptEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.object({
      note_id: z.uuid(),
      text: z.string(),
      language: z.string().nullable(),
      duration_seconds: z.number().nullable(),
      segments: z.array(
        z.object({
          start: z.number().meta({ description: 'Seconds from the start of the whole audio' }),
          end: z.number(),
          text: z.string(),
          speaker: z.string().optional().meta({ description: 'Speaker label when diarization is on (TRANSCRIPTION_DIARIZE), e.g. "A"' }),
        }),
      ),
      provider: z.string(),
      model: z.string().nullable(),
    }),
  })
  .meta({ id: 'TranscriptResponse' });

const tags = ['Notes'];

export async function noteReadRoutes(app: AppInstance, { notes }: { notes: NotesService }) {
  app.get(
    '/notes',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'listNotes',
        summary: "List your clinic's notes, newest first, with filters that combine",
        tags,
        querystring: ListNotesQuery,
        response: { 200: NoteListEnvelope, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { items, total, exact } = await notes.list(notesCallerOf(request), request.query);
      const { page, limit } = request.query;
      const totalPages = Math.ceil(total / limit);
      return {
        status: 'success' as const,
        data: items,
        meta: { total, page, limit, total_pages: totalPages, total_exact: exact },
        notes: items,
        pagination: { current_page: page, total_pages: totalPages, total_items: total, total_items_exact: exact },
      };
    },
  );

  app.get(
    '/notes/:id/transcription',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'getNoteTranscription',
        summary: 'The stored transcript of a completed note (`?format=txt` for plain text)',
        tags,
        params: NoteIdParams,
        querystring: z.object({ format: z.string().optional() }),
        response: { 200: TranscriptEnvelope, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const format = request.query.format ?? 'json';
      if (format !== 'json' && format !== 'txt') {
        throw new AppError('INVALID_PARAMETER', 'format must be json or txt', { field: 'format', expected: ['json', 'txt'] });
      }
      const note = await notes.find(notesCallerOf(request), request.params.id);
      if (note.transcriptionStatus !== 'completed' || !note.transcript) {
        throw new AppError('NOTE_NOT_COMPLETED', 'The transcript exists once the note is completed', {
          transcription_status: note.transcriptionStatus,
        });
      }
      if (format === 'txt')
        return reply
          .type('text/plain; charset=utf-8')
          .serializer(String)
          .send(note.transcript.text as never);
      return { status: 'success' as const, data: { note_id: note.id, ...note.transcript } };
    },
  );

  app.get(
    '/notes/:id',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'getNote',
        summary: 'A note with its sections',
        tags,
        params: NoteIdParams,
        response: { 200: NoteEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    // The rendered note is JSON text already: sent as it is (a string payload is not serialised
    // again); the schema above still describes it for the OpenAPI.
    async (request, reply) => {
      const data = await notes.get(notesCallerOf(request), request.params.id);
      return reply.type('application/json; charset=utf-8').send(`{"status":"success","data":${data}}` as never);
    },
  );

  app.get(
    '/notes/:id/status',
    {
      config: { access: { notesPermission: 'notes:read' }, rateLimit: false },
      schema: {
        operationId: 'getNoteStatus',
        summary: 'Transcription status, for polling (not rate limited; every 5 s is plenty)',
        tags,
        params: NoteIdParams,
        // 429: not the rate limit, the brute-force block a wrong key from a blocked address meets.
        response: { 200: StatusResultSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => notes.status(notesCallerOf(request), request.params.id),
  );
}
