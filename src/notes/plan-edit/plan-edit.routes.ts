import { z } from 'zod';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { NoteIdParams } from '../store/note.schemas.ts';
import { PlanSchema } from '../store/plan.schemas.ts';
import type { PlanEditService } from './plan-edit.service.ts';
import { PlanReplaceBody } from './plan-input.ts';

const PlanEnvelope = z.object({ status: z.literal('success'), data: PlanSchema }).meta({ id: 'PlanResponse' });

export async function planEditRoutes(app: AppInstance, { planEdit }: { planEdit: PlanEditService }) {
  app.put(
    '/notes/:id/plan',
    {
      config: { access: { notesPermission: 'notes:write' } },
      schema: {
        operationId: 'replaceNotePlan',
        summary: "Replace a note's plan (medications, exams, vaccines, follow-ups) whole",
        description:
          'For the veterinarian who corrects what was read from the consultation, before signing. The body is the whole ' +
          'plan (`PlanReplace`): every list, each item with its fields as the note shows them. `id`: kept when sent (a ' +
          'UUID; the same id twice → 422), a new one when absent. `evidence` is stored as null (no audio said the words ' +
          "sent); `computed_total` and `due_date` are computed again from the note's weight and `visit_date`. A bad unit, " +
          'route or code, an unknown field or more than 100 items in a list → 422 `VALIDATION_ERROR`. Only a completed ' +
          'note (else 422 `NOTE_NOT_COMPLETED`) that is not signed (409 `NOTE_SIGNED`: after signing, amend a section and ' +
          "the plan is read again from its words). The note's `updated_at` moves, the worklist (`GET /follow_ups`) " +
          "follows at once, and the note's history keeps the plan before and after (`plan_replaced`). Like a section " +
          'edit, it sends no webhook. Answers the plan as stored.',
        tags: ['Notes'],
        params: NoteIdParams,
        body: PlanReplaceBody,
        response: { 200: PlanEnvelope, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => ({
      status: 'success' as const,
      data: await planEdit.replace(notesCallerOf(request), request.params.id, request.body),
    }),
  );
}
