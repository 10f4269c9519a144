import type { Db } from '../../platform/db/client.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { NoteEnvelope, NoteIdParams, StatusResultSchema } from './note.schemas.ts';
import { getNote, prepareStatusLookup } from './notes.service.ts';

const security = [{ NotesApiKey: [] }];
const tags = ['Notes'];

export async function noteReadRoutes(app: AppInstance, { db, publicBaseUrl }: { db: Db; publicBaseUrl: string }) {
  const statusOf = prepareStatusLookup(db);

  app.get(
    '/notes/:id',
    {
      config: { notesAccess: 'notes:read' },
      schema: {
        summary: 'A note with its sections',
        tags,
        security,
        params: NoteIdParams,
        response: { 200: NoteEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await getNote(db, notesCallerOf(request), request.params.id, publicBaseUrl) }),
  );

  app.get(
    '/notes/:id/status',
    {
      config: { notesAccess: 'notes:read', rateLimit: false },
      schema: {
        summary: 'Transcription status, for polling (not rate limited; every 5 s is plenty)',
        tags,
        security,
        params: NoteIdParams,
        response: { 200: StatusResultSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => statusOf(notesCallerOf(request), request.params.id),
  );
}
