import { metaOf } from '../../platform/http/pagination.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { notesCallerOf } from '../auth/notes-access.ts';
import { ExternalIdParams, PatientHistoryEnvelope, PatientsEnvelope, PatientsQuery } from './patients.schemas.ts';
import type { PatientsService } from './patients.service.ts';

const tags = ['Patients'];

export async function patientRoutes(app: AppInstance, { patients }: { patients: PatientsService }) {
  app.get(
    '/patients',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'listPatients',
        summary: "Your clinic's patients (notes grouped by external_id), the latest visit first",
        description:
          'Each external id your notes carry, with the name of its newest note, its species, how many notes and the ' +
          'latest visit date. `q` finds part of the name or of the external id. Paged as `GET /notes` (`page`, `limit` ≤ 100, `meta`).',
        tags,
        querystring: PatientsQuery,
        response: { 200: PatientsEnvelope, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { items, total } = await patients.list(notesCallerOf(request), request.query);
      return { status: 'success' as const, data: items, meta: metaOf(request.query, total) };
    },
  );

  app.get(
    '/patients/:external_id',
    {
      config: { access: { notesPermission: 'notes:read' } },
      schema: {
        operationId: 'getPatientHistory',
        summary: "A patient's history: visits, diagnoses, medications, weights and open follow-ups",
        description:
          "Assembled from your clinic's notes with this `external_id`: one timeline entry per completed note (newest " +
          'visit first) with its diagnosis section, plan medications, vitals and follow-ups, each item with the `note_id` ' +
          'it came from and its `evidence`; the weights oldest first; the follow-ups still open. An id none of your ' +
          'notes carries → 404 `PATIENT_NOT_FOUND` (also when only another clinic uses it).',
        tags,
        params: ExternalIdParams,
        response: { 200: PatientHistoryEnvelope, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => ({ status: 'success' as const, data: await patients.history(notesCallerOf(request), request.params.external_id) }),
  );
}
