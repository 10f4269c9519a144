import { z } from 'zod';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { NoteIdParams } from '../store/note.schemas.ts';
import type { AudioService } from './audio.service.ts';

const Audio = z.string().meta({ format: 'binary', description: 'The recording, or the range asked' });
const AUDIO_TYPES = ['audio/mpeg', 'audio/wav', 'audio/mp4', 'audio/aac'];
const audioContent = Object.fromEntries(AUDIO_TYPES.map((type) => [type, { schema: Audio }]));

export async function audioRoutes(app: AppInstance, { audio }: { audio: AudioService }) {
  app.get(
    '/notes/:id/audio',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'getNoteAudio',
        summary: "The note's recording, with byte ranges (an <audio> element can seek in it)",
        description:
          'The bytes that were uploaded, with their content type (`audio/mpeg`, `audio/wav`, `audio/mp4`, `audio/aac`) and ' +
          '`Accept-Ranges: bytes`. `Range: bytes=a-b`, `bytes=a-` or `bytes=-n` → 206 with `Content-Range` and exactly ' +
          "those bytes (a section's `evidence` times map to bytes through the audio's bitrate: a player seeks by time). " +
          'Several ranges → the whole file (200); a unit other than bytes is ignored. A malformed bytes range or one that ' +
          'starts past the end → 416 `RANGE_NOT_SATISFIABLE` with `Content-Range: bytes */<size>`. No audio stored → 404 ' +
          "`AUDIO_NOT_FOUND`. Deleted by the clinic's audio retention (`audio_retention_days` in /settings; the note " +
          'shows `audio.deleted_at`) → 410 `AUDIO_EXPIRED` with `details.deleted_at`. ' +
          "Each fetch is recorded in the note's history (`audio_fetched`).",
        tags: ['Notes'],
        params: NoteIdParams,
        headers: z.object({ range: z.string().optional().meta({ description: 'e.g. `bytes=0-65535`, `bytes=1000-`, `bytes=-500`' }) }),
        response: {
          200: { description: 'The whole recording', content: audioContent },
          206: { description: 'The range asked (`Content-Range: bytes a-b/size`)', content: audioContent },
          ...errorResponses(400, 401, 403, 404, 410, 416, 429),
        },
      },
    },
    async (request, reply) => {
      const answer = await audio.fetch(notesCallerOf(request), {
        noteId: request.params.id,
        range: request.headers.range,
        record: request.method === 'GET',
      });
      // A stream, which Fastify pipes as it is (the schema above documents it; nothing serialises it).
      return reply
        .code(answer.statusCode)
        .headers(answer.headers)
        .send(answer.body as never);
    },
  );
}
