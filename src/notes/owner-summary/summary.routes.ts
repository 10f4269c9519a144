import { idempotencyKeyOf } from '../../platform/http/idempotency-key.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { NoteIdParams } from '../store/note.schemas.ts';
import type { SendSummaryService } from './send-summary.service.ts';
import {
  ApproveSummaryBody,
  CreateSummaryBody,
  EditSummaryBody,
  SendSummaryBody,
  SentSummaryEnvelope,
  SummaryEnvelope,
} from './summary.schemas.ts';
import type { SummaryService } from './summary.service.ts';

const tags = ['Owner summary'];
const ok = <T>(data: T) => ({ status: 'success' as const, data });

export async function summaryRoutes(app: AppInstance, { summaries, sender }: { summaries: SummaryService; sender: SendSummaryService }) {
  app.post(
    '/notes/:id/owner_summary',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'createOwnerSummary',
        summary: 'Write the next version of the tutor\'s summary ("Orientações ao tutor") from a completed note',
        description:
          'Built from the note (greeting, patient, visit date, diagnosis, each medication as a home instruction, exams, ' +
          'vaccines, the return, warning signs the note states, the clinic), at most 1,024 characters: when the whole does ' +
          'not fit, the instructions and the return stay and the message says the rest is in the record. `style: "plain"` ' +
          'asks the drafting server for plainer words, kept only when grounded in the note (else the built text, flagged). ' +
          '422 `NOTE_NOT_COMPLETED` before completion. docs/notes-owner-summary.md',
        tags,
        params: NoteIdParams,
        body: CreateSummaryBody,
        response: { 201: SummaryEnvelope, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(ok(await summaries.create(notesCallerOf(request), request.params.id, { style: request.body?.style ?? 'standard' }))),
  );

  app.get(
    '/notes/:id/owner_summary',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'getOwnerSummary',
        summary: "The newest version of the note's owner summary, with its deliveries",
        description: '404 `SUMMARY_NOT_FOUND` until one is made.',
        tags,
        params: NoteIdParams,
        response: { 200: SummaryEnvelope, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ok(await summaries.get(notesCallerOf(request), request.params.id)),
  );

  app.put(
    '/notes/:id/owner_summary',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'editOwnerSummary',
        summary: "Replace the newest summary's text with the vet's own",
        description:
          'The text is checked against the note: a number, dose, unit, frequency, duration, drug or side it does not state → ' +
          '422 `SUMMARY_NOT_GROUNDED` (`details.tokens`). An approved summary → 409 `SUMMARY_APPROVED`.',
        tags,
        params: NoteIdParams,
        body: EditSummaryBody,
        response: { 200: SummaryEnvelope, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => ok(await summaries.edit(notesCallerOf(request), request.params.id, request.body)),
  );

  app.post(
    '/notes/:id/owner_summary/approve',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'approveOwnerSummary',
        summary: 'Approve the newest summary for sending (the note must be signed)',
        description:
          "Records the approver and `content_sha256`, the hex SHA-256 of the text's UTF-8 bytes, also in the note's history " +
          '(`owner_summary_approved`). 409 `NOTE_NOT_SIGNED` on an unsigned note; 409 `SUMMARY_APPROVED` when already approved.',
        tags,
        params: NoteIdParams,
        body: ApproveSummaryBody,
        response: { 200: SummaryEnvelope, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => ok(await summaries.approve(notesCallerOf(request), request.params.id, request.body)),
  );

  app.post(
    '/notes/:id/owner_summary/send',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'sendOwnerSummary',
        summary: "Send the approved summary to the tutor's WhatsApp through the clinic's CRM workspace",
        description:
          'Queues the text, word for word, as a `visit_summary` message of the CRM contact found by external id, then phone ' +
          "(created with a name and phone when missing), from `contact` or the note's `tutor`; in the clinic's " +
          '`owner_summary_template` when set. Refusals in order: 409 `SUMMARY_NOT_APPROVED`, 409 `CRM_NOT_LINKED`, 422 ' +
          '`TUTOR_REQUIRED`. The linked workspace suspended → 403 `BILLING_INACTIVE`. `Idempotency-Key` makes a retried request ' +
          'send nothing twice (the same key with another text → 422 `IDEMPOTENCY_KEY_REUSED`). `note.owner_summary_sent` ' +
          'follows with the delivery outcome. 503 `WEBHOOK_KEY_MISSING` when the server cannot open the sealed CRM key.',
        tags,
        params: NoteIdParams,
        body: SendSummaryBody,
        response: { 202: SentSummaryEnvelope, ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const data = await sender.send(notesCallerOf(request), request.params.id, {
        contact: request.body?.contact
          ? { externalId: request.body.contact.external_id, phone: request.body.contact.phone, name: request.body.contact.name }
          : undefined,
        idempotencyKey: idempotencyKeyOf(request),
      });
      return reply.code(202).send(ok(data));
    },
  );
}
