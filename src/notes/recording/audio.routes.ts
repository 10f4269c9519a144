import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { PartParams } from '../live/live.schemas.ts';
import { NoteIdParams } from '../store/note.schemas.ts';
import type { AudioAnswer, AudioService } from './audio.service.ts';

const Audio = z.string().meta({ format: 'binary', description: 'The recording, or the range asked' });
const AUDIO_TYPES = ['audio/mpeg', 'audio/wav', 'audio/mp4', 'audio/aac'];
const audioContent = Object.fromEntries(AUDIO_TYPES.map((type) => [type, { schema: Audio }]));
const RangeHeaders = z.object({ range: z.string().optional().meta({ description: 'e.g. `bytes=0-65535`, `bytes=1000-`, `bytes=-500`' }) });

/** What a ranged audio route answers: the whole file, the range asked, or an error. */
const rangedResponses = (whole: string) => ({
  200: { description: whole, content: audioContent },
  206: { description: 'The range asked (`Content-Range: bytes a-b/size`)', content: audioContent },
  ...errorResponses(400, 401, 403, 404, 409, 410, 416, 429),
});

/** A stream, which Fastify pipes as it is (the schema documents it; nothing serialises it). */
function sendAudio(reply: FastifyReply, answer: AudioAnswer) {
  return reply
    .code(answer.statusCode)
    .headers(answer.headers)
    .send(answer.body as never);
}

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
          '`AUDIO_NOT_FOUND`. A live note whose parts are not joined into one file (capture still open; parts in ' +
          'different formats or stream parameters, which this service does not re-encode; join not run yet) → 409 ' +
          '`AUDIO_IN_PARTS`, `details.parts` listing each part (`part`, `format`, `bytes`, `seconds`, `url`): fetch each ' +
          "from `GET /notes/{id}/parts/{n}/audio` and play them in part order. Deleted by the clinic's audio retention (`audio_retention_days` in /settings; the note " +
          'shows `audio.deleted_at`) → 410 `AUDIO_EXPIRED` with `details.deleted_at`. ' +
          "Each fetch is recorded in the note's history (`audio_fetched`).",
        tags: ['Notes'],
        params: NoteIdParams,
        headers: RangeHeaders,
        response: rangedResponses('The whole recording'),
      },
    },
    async (request, reply) => {
      const answer = await audio.fetch(notesCallerOf(request), {
        noteId: request.params.id,
        range: request.headers.range,
        record: request.method === 'GET',
      });
      return sendAudio(reply, answer);
    },
  );

  app.get(
    '/notes/:id/parts/:n/audio',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'getLiveNotePartAudio',
        summary: "Part n of a live note's recording, as it was sent, with byte ranges",
        description:
          'The bytes of one part (docs/notes-live.md), with its content type and `Accept-Ranges: bytes`, ranges as for ' +
          '`GET /notes/{id}/audio`. What a live note whose parts were not joined into one file hands out (its audio ' +
          'answers 409 `AUDIO_IN_PARTS` listing them); works for every live note, joined or not. A part not held → 404 ' +
          "`PART_NOT_FOUND`; a note uploaded in one piece → 409 `CAPTURE_CLOSED` (`details.live: false`); deleted by the clinic's " +
          "audio retention → 410 `AUDIO_EXPIRED`. Each fetch is recorded in the note's history (`audio_fetched`, `details.part`).",
        tags: ['Live capture'],
        params: PartParams,
        headers: RangeHeaders,
        response: rangedResponses('The whole part'),
      },
    },
    async (request, reply) => {
      const answer = await audio.fetchPart(notesCallerOf(request), {
        noteId: request.params.id,
        part: request.params.n,
        range: request.headers.range,
        record: request.method === 'GET',
      });
      return sendAudio(reply, answer);
    },
  );
}
