import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { idempotencyKeyOf } from '../../platform/http/idempotency-key.ts';
import { LINGERING_CLOSE_NOTE } from '../../platform/http/lingering-close.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { notesTempDirs } from '../processing/temp-dir.ts';
import { NoteIdParams } from '../store/note.schemas.ts';
import {
  CompleteBody,
  CompleteEnvelope,
  CreatedLiveNoteEnvelope,
  LiveNoteRequest,
  PART_MAX_BYTES,
  PartBody,
  PartEnvelope,
  PartListEnvelope,
  PartParams,
} from './live.schemas.ts';
import type { LiveService } from './live.service.ts';
import { partParser, type ReceivedPart } from './receive-part.ts';

const tags = ['Live capture'];

/** Live consultations (docs/notes-live.md): a note filled by numbered parts while the visit runs. */
export async function liveRoutes(app: AppInstance, { live }: { live: LiveService }) {
  app.post(
    '/notes/live',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'createLiveNote',
        summary: 'Start a live note: audio follows in numbered parts while the consultation runs',
        description:
          'The note is `pending` with `capture.state` `open` until `POST /notes/{id}/complete`. Send `Idempotency-Key` ' +
          'to make a retried request return the first response (24 h, per clinic). A note left without a new part for ' +
          '`LIVE_CAPTURE_IDLE_SECONDS` (default 7200) is completed with the parts it has (review flag ' +
          '`capture_auto_closed`), or fails `CAPTURE_ABANDONED` when it has none.',
        tags,
        body: LiveNoteRequest,
        response: { 201: CreatedLiveNoteEnvelope, ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const result = await live.create(notesCallerOf(request), { body: request.body, idempotencyKey: idempotencyKeyOf(request) });
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(result.statusCode as 201).send(result.body);
    },
  );

  app.get(
    '/notes/:id/parts',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'listLiveNoteParts',
        summary: 'The parts the server holds, in part order: resend only the missing ones',
        tags,
        params: NoteIdParams,
        response: { 200: PartListEnvelope, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, ...(await live.listParts(notesCallerOf(request), request.params.id)) }),
  );

  app.post(
    '/notes/:id/complete',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'completeLiveNote',
        summary: 'End the capture at N parts: the last stretch is transcribed, then the note is written',
        description:
          'Parts 1..N must all be held (409 `PARTS_MISSING`, `details.missing`, checked first) and none above N ' +
          '(409 `PARTS_UNEXPECTED`, `details.unexpected`). Sent again with the same N it answers 202 again; with ' +
          'another N, 409 `CAPTURE_CLOSED`. Then poll `GET /notes/{id}/status` as for an upload.',
        tags,
        params: NoteIdParams,
        body: CompleteBody,
        response: { 202: CompleteEnvelope, ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.code(202).send({
        status: 'success' as const,
        data: await live.complete(notesCallerOf(request), { noteId: request.params.id, parts: request.body.parts }),
      }),
  );

  // The part's raw bytes, whatever their Content-Type, go through one streaming parser in this scope only.
  await app.register(async (scope: AppInstance) => {
    const tmpDir = notesTempDirs(scope.vetflow.config).parts;
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', partParser(tmpDir, PART_MAX_BYTES));
    // The handler removes the part's temporary file (putPart, whatever its outcome), but a request
    // refused after its body was read and before the handler ran (a path parameter out of range) never
    // gets there: whatever the answer, the file goes with the request.
    scope.addHook('onResponse', (request, _reply, done) => {
      const received = request.body as ReceivedPart | undefined;
      if (!received?.path) return done();
      rm(received.path, { force: true }).then(() => done(), done);
    });
    scope.put(
      '/notes/:id/parts/:n',
      {
        config: { access: { notesPermission: 'notes:write' } },
        bodyLimit: PART_MAX_BYTES,
        schema: {
          operationId: 'putLiveNotePart',
          summary: "Send part n of a live note's recording (raw bytes, any Content-Type)",
          description:
            'One independently decodable wav, mp3, m4a or aac file (decided from the bytes; parts may differ), 1-600 s, ' +
            `at most ${PART_MAX_BYTES} bytes (413 as soon as passed: ${LINGERING_CLOSE_NOTE}). 201 once the part is stored and recorded; the same ` +
            'bytes again answer 200 with the same body (also after complete); other bytes for a held part 409 ' +
            '`PART_CONFLICT`; a new part for a note that is not live or no longer open 409 `CAPTURE_CLOSED`. The whole ' +
            'recording is held to the upload limits (`AUDIO_MAX_SECONDS` 422, `AUDIO_MAX_BYTES` 413) and counted against ' +
            'the quota as parts arrive.',
          tags,
          params: PartParams,
          consumes: ['application/octet-stream', '*/*'],
          body: PartBody,
          response: { 200: PartEnvelope, 201: PartEnvelope, ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429) },
        },
      },
      async (request, reply) => {
        // A request without a body (no Content-Length, no Content-Type) skips the parser: an empty part.
        const audio = request.body ?? (await partParser(tmpDir, PART_MAX_BYTES)(request, Readable.from([])));
        const result = await live.putPart(notesCallerOf(request), { noteId: request.params.id, part: request.params.n, audio });
        return reply.code(result.statusCode as 201).send(result.body);
      },
    );
  });
}
