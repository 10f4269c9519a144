import { z } from 'zod';
import { TimestampSchema } from '../../platform/http/schemas.ts';

const Reason = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .meta({ description: 'Why (1-500 characters), kept in the erasure log', example: 'Pedido do titular (LGPD art. 18, VI)' });

export const DeleteNoteBody = z
  .strictObject({ reason: Reason.optional() })
  .nullish()
  .meta({ id: 'DeleteNoteRequest', description: 'Optional; `reason` is required to delete a signed or amended note' });

export const ErasePatientBody = z
  .strictObject({
    external_id: z.string().trim().min(1).max(100).meta({
      description: "The clinic software's patient or tutor id, as sent in the notes' upload metadata `external_id`",
      example: 'PAC-1234',
    }),
    reason: Reason,
  })
  .meta({ id: 'ErasePatientRequest' });

export const PatientErasureEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.object({
      id: z.uuid().meta({ description: 'The erasure log entry' }),
      external_id: z.string().meta({ description: 'As asked (the log keeps only its keyed digest)' }),
      notes_deleted: z.int().meta({ description: 'Notes deleted by this call: 0 when there was none (left)' }),
      created_at: TimestampSchema,
    }),
  })
  .meta({ id: 'PatientErasureResponse' });

export const ErasureSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(['note', 'patient']).meta({ description: '`note`: DELETE /notes/{id}. `patient`: POST /erasures' }),
    note_id: z.uuid().nullable().meta({ description: 'The deleted note (kind `note`); null for a patient' }),
    external_id_hmac: z
      .string()
      .nullable()
      .meta({
        description:
          'Keyed digest of the external id (of the patient, or of the deleted note when it had one; null otherwise): hex ' +
          "HMAC-SHA-256, under the server's erasure log key, of the hex SHA-256 of the id's UTF-8 bytes. The id itself is " +
          'not kept, and without the key the digest tells nothing: to find the entries of an id, list with `?external_id=`.',
      }),
    notes_deleted: z.int(),
    key_id: z.uuid().meta({ description: 'The administrator key that did it' }),
    reason: z.string().nullable(),
    created_at: TimestampSchema,
  })
  .meta({ id: 'Erasure', description: 'One entry of the erasure log: no patient data' });

export const ErasureListEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.array(ErasureSchema),
    meta: z.object({ total: z.int(), page: z.int(), limit: z.int(), total_pages: z.int() }),
  })
  .meta({ id: 'ErasureListResponse' });

export const ErasuresQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  external_id: z.string().trim().min(1).max(100).optional().meta({
    description: 'Only the entries of this external id ("did we erase X?"), under the current or the previous erasure log key',
    example: 'PAC-1234',
  }),
});
