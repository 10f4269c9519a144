import { metaOf } from '../../platform/http/pagination.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { FollowUpsEnvelope, FollowUpsQuery } from './follow-ups.schemas.ts';
import type { FollowUpsService } from './follow-ups.service.ts';

export async function followUpRoutes(app: AppInstance, { followUps }: { followUps: FollowUpsService }) {
  app.get(
    '/follow_ups',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'listFollowUps',
        summary: "Your clinic's follow-ups due in a range of days (the reminders worklist), oldest due first",
        description:
          "Every follow-up with a due date in the plans of your clinic's notes (rechecks, boosters, exam results, " +
          'procedures), with its note and patient, so an ERP can send the reminders without reading every note. ' +
          '`due_from` and `due_to` are inclusive `YYYY-MM-DD` days (a bad day, or `due_from` after `due_to` → 422 ' +
          '`VALIDATION_ERROR`); paged as `GET /notes` (`page`, `limit` ≤ 100, `meta`). Follow-ups without a due date ' +
          '("se piorar") are not listed. It follows the plans at once: an edit or `PUT /notes/{id}/plan` changes it in ' +
          "the same transaction, and a note's erasure removes its follow-ups.",
        tags: ['Notes'],
        querystring: FollowUpsQuery,
        response: { 200: FollowUpsEnvelope, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { items, total } = await followUps.list(notesCallerOf(request), request.query);
      return { status: 'success' as const, data: items, meta: metaOf(request.query, total) };
    },
  );
}
