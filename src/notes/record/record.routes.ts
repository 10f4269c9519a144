import { AppError } from '../../platform/errors.ts';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { NoteEnvelope, NoteIdParams } from '../store/note.schemas.ts';
import { AmendBody, AmendmentEnvelope, AmendmentListEnvelope, SignBody } from './record.schemas.ts';
import type { RecordService } from './record.service.ts';

const tags = ['Notes'];

export async function recordRoutes(app: AppInstance, { record }: { record: RecordService }) {
  app.post(
    '/notes/:id/sign',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'signNote',
        summary: 'Sign a completed note as the responsible veterinarian; the note is then locked',
        description:
          "Records the signer (name and licence), the key, the time and the SHA-256 of the note's clinical content " +
          '(docs/notes-record.md), and makes `record_status` `signed`. Afterwards section edits and retries answer 409 ' +
          '`NOTE_SIGNED`; corrections are amendments. 422 `NOTE_NOT_COMPLETED` before completion; 409 `REVIEW_FLAGS_OPEN` ' +
          '(`details.flags`: how many) while review flags are open, unless `acknowledge_flags: true`; 409 `NOTE_SIGNED` when ' +
          'already signed. Sends `note.signed`.',
        tags,
        params: NoteIdParams,
        body: SignBody,
        response: { 200: NoteEnvelope, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await record.sign(notesCallerOf(request), request.params.id, request.body) }),
  );

  app.post(
    '/notes/:id/amendments',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'amendNote',
        summary: 'Correct one section of a signed note (append-only)',
        description:
          'The section shows the new content; the amendment keeps the text it replaced, the reason and the signer, and ' +
          'links the hash chain (`previous_sha256` → `content_sha256`). 409 `NOTE_NOT_SIGNED` on a draft; 404 ' +
          '`SECTION_NOT_FOUND` for a section of another note; 400 `INVALID_SECTION_ID` when `section_id` is not a UUID. Makes `record_status` `amended` and sends `note.amended`.',
        tags,
        params: NoteIdParams,
        body: AmendBody,
        response: { 201: AmendmentEnvelope, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const sectionId = UuidSchema.safeParse(request.body.section_id);
      if (!sectionId.success) {
        throw new AppError('INVALID_SECTION_ID', 'section_id must be a UUID', { field: 'section_id', reason: 'not a UUID' });
      }
      const data = await record.amend(notesCallerOf(request), request.params.id, {
        ...request.body,
        section_id: sectionId.data.toLowerCase(),
      });
      return reply.code(201).send({ status: 'success' as const, data });
    },
  );

  app.get(
    '/notes/:id/amendments',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'listNoteAmendments',
        summary: "A note's amendments, oldest first (empty for an unsigned note)",
        tags,
        params: NoteIdParams,
        response: { 200: AmendmentListEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await record.listAmendments(notesCallerOf(request), request.params.id) }),
  );
}
