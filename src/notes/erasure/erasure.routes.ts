import { z } from 'zod';
import { OPTIONAL_BODY } from '../../platform/http/openapi.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { NoteIdParams } from '../store/note.schemas.ts';
import { DeleteNoteBody, ErasePatientBody, ErasureListEnvelope, ErasuresQuery, PatientErasureEnvelope } from './erasure.schemas.ts';
import type { ErasureService } from './erasure.service.ts';

const administrator = { access: { notesPermission: 'keys:manage' } } as const;
const tags = ['Privacy'];

/** What goes with a note (docs/privacy.md): the same for one note and for a patient's notes. */
const WHAT_GOES =
  'Its recording (local disk or S3), transcript, transcript chunks, sections, section versions, signature, amendments, ' +
  'history and retries; the stored Idempotency-Key answers that name it; its queued jobs (a transcription still ' +
  'waiting, webhook deliveries not yet sent: they end `failed` with `last_error` "not sent: the note was deleted"); and ' +
  'the webhook events already recorded for it keep only their shell `{type, timestamp, data: {note_id}}` (their ' +
  "`webhook-id` stays valid for the receiver's audit; a redelivery sends that shell). The files are deleted right after " +
  'the commit, and retried in the background when storage is unreachable.';

export async function erasureRoutes(app: AppInstance, { erasure }: { erasure: ErasureService }) {
  app.delete(
    '/notes/:id',
    {
      config: administrator,
      schema: {
        operationId: 'deleteNote',
        summary: 'Delete a note and everything it touched, for good (administrator)',
        description:
          `${WHAT_GOES} Afterwards every route for the id answers 404 \`NOTE_NOT_FOUND\` (a second DELETE too). A signed or ` +
          'amended note needs `{"reason": "…"}` (1-500 characters; without it 422 `REASON_REQUIRED`, nothing deleted); a ' +
          'draft takes one optionally. Each deletion writes a `note` entry in the erasure log (`GET /erasures`): note ' +
          'id, key, reason and time, no patient data.',
        tags,
        params: NoteIdParams,
        body: DeleteNoteBody,
        [OPTIONAL_BODY]: true,
        response: {
          204: z.null().meta({ description: 'Deleted' }),
          ...errorResponses(400, 401, 403, 404, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      await erasure.deleteNote(notesCallerOf(request), { noteId: request.params.id, reason: request.body?.reason });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/erasures',
    {
      config: administrator,
      schema: {
        operationId: 'erasePatient',
        summary: 'Erase a patient: every note of one external id in your clinic (administrator)',
        description:
          "A titular's right to erasure (LGPD Art. 18) in one call: every note whose `external_id` is the one given, " +
          `signed ones included, goes as \`DELETE /notes/{id}\` deletes one, in one transaction. ${WHAT_GOES} One ` +
          '`patient` entry in the erasure log, with a keyed digest of the external id, never the id. A second call deletes ' +
          'nothing more (`notes_deleted: 0`) and is logged too: the log shows every request answered.',
        tags,
        body: ErasePatientBody,
        response: { 200: PatientErasureEnvelope, ...errorResponses(400, 401, 403, 415, 422, 429) },
      },
    },
    async (request) => ({
      status: 'success' as const,
      data: await erasure.erasePatient(notesCallerOf(request), { externalId: request.body.external_id, reason: request.body.reason }),
    }),
  );

  app.get(
    '/erasures',
    {
      config: administrator,
      schema: {
        operationId: 'listErasures',
        summary: "Your clinic's erasure log, newest first (administrator, paginated)",
        description:
          'Every note deletion (`note`) and patient erasure (`patient`): ids, a keyed digest of the external id, how many ' +
          'notes, the key, the reason and the time — no patient data. Kept 5 years. `?external_id=` answers "did we ' +
          'erase X?": only the entries of that id.',
        tags,
        querystring: ErasuresQuery,
        response: { 200: ErasureListEnvelope, ...errorResponses(400, 401, 403, 422, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, ...(await erasure.list(notesCallerOf(request), request.query)) }),
  );
}
