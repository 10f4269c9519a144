import { z } from 'zod';
import { TimestampSchema } from '../../platform/http/schemas.ts';
import { CaptureSchema, TranscriptionStatusSchema } from '../store/note.schemas.ts';
import type { ReceivedPart } from './receive-part.ts';

export const PART_MAX_BYTES = 25_000_000;
export const PART_MIN_SECONDS = 1;
export const PART_MAX_SECONDS = 600;
export const MAX_PARTS = 1000;

export const LiveNoteRequest = z.record(z.string(), z.unknown()).meta({
  id: 'LiveNoteRequest',
  description:
    'The same fields and validation as the `metadata` part of an upload (`NoteUploadMetadata`): `{"name", "gender"?, ' +
    '"external_id"?, "metadata"?: [{"key","value"}], "note_style"?, "species"?, "template"?, "visit_date"?}`; `patient_name` is accepted for `name`, other ' +
    'top-level strings become metadata items.',
  examples: [{ name: 'Thor', gender: 'male', external_id: 'pet-123', note_style: 'verbatim' }],
});

export const CreatedLiveNoteEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.object({
      id: z.uuid(),
      name: z.string(),
      transcription_status: z.literal('pending'),
      capture: CaptureSchema,
      created_at: TimestampSchema,
    }),
  })
  .meta({ id: 'CreatedLiveNoteResponse' });

export const PartParams = z.object({
  id: z.uuid(),
  n: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PARTS)
    .meta({ description: `Part number, 1-${MAX_PARTS}, in recording order` }),
});

/** The raw bytes of a part, as the content-type parser received them (receive-part.ts). */
export const PartBody = z.custom<ReceivedPart>().meta({
  type: 'string',
  format: 'binary',
  description:
    `The part's raw bytes (any Content-Type): one independently decodable wav, mp3, m4a or aac file (decided from the ` +
    `bytes), ${PART_MIN_SECONDS}-${PART_MAX_SECONDS} s, at most ${PART_MAX_BYTES} bytes.`,
});

export const PartSchema = z
  .object({
    note_id: z.uuid(),
    part: z.number().int(),
    seconds: z.number().meta({ description: 'Duration of the part' }),
    bytes: z.number().int(),
    sha256: z.string().meta({ description: 'Lowercase hex SHA-256 of the bytes' }),
  })
  .meta({ id: 'LivePart' });

export const PartEnvelope = z.object({ status: z.literal('success'), data: PartSchema }).meta({ id: 'LivePartResponse' });

export const PartListEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.array(
      z.object({ part: z.number().int(), seconds: z.number(), bytes: z.number().int(), sha256: z.string(), received_at: TimestampSchema }),
    ),
    meta: CaptureSchema,
  })
  .meta({ id: 'LivePartListResponse' });

export const CompleteBody = z
  .object({
    parts: z
      .number()
      .int()
      .min(1)
      .max(MAX_PARTS)
      .meta({ description: 'How many parts the recording has: parts 1..N must all be held, and none above N' }),
  })
  .meta({ id: 'CompleteLiveNoteRequest' });

export const CompleteEnvelope = z
  .object({ status: z.literal('success'), data: z.object({ id: z.uuid(), transcription_status: TranscriptionStatusSchema }) })
  .meta({ id: 'CompleteLiveNoteResponse' });
