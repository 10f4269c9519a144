import { z } from 'zod';
import { TimestampSchema } from '../../platform/http/schemas.ts';

export const TranscriptionStatusSchema = z.enum(['pending', 'processing', 'completed', 'failed']);

export const NoteSectionSchema = z
  .object({
    id: z.uuid(),
    note_id: z.uuid(),
    title: z.string(),
    label: z.string(),
    content: z.string(),
    order: z.string().meta({ description: 'Numeric string, "1", "2", ...' }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: 'NoteSection' });

export const NoteSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    gender: z.enum(['male', 'female', 'unidentified']),
    audio_name: z.string().nullable(),
    transcription_status: TranscriptionStatusSchema,
    transcription_url: z.string().nullable().meta({ description: 'Set only when completed' }),
    external_id: z.string().nullable(),
    metadata: z.array(z.object({ key: z.string(), value: z.string() })),
    note_sections: z.array(NoteSectionSchema).optional().meta({ description: 'Single-note fetch only; empty unless completed' }),
    failure: z.object({ code: z.string(), message: z.string() }).optional().meta({ description: 'Present while failed' }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: 'Note' });

export const NoteEnvelope = z.object({ status: z.literal('success'), data: NoteSchema }).meta({ id: 'NoteResponse' });

export const CreatedNoteEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.object({ id: z.uuid(), name: z.string(), transcription_status: z.literal('pending'), created_at: TimestampSchema }),
  })
  .meta({ id: 'CreatedNoteResponse' });

export const StatusResultSchema = z
  .object({
    status: TranscriptionStatusSchema,
    valid: z.boolean().meta({ description: 'false only when failed' }),
    progress: z.number().min(0).max(1).optional().meta({
      description:
        'Only while `processing` audio that is transcribed in chunks (longer than one request to the transcription server may carry): chunks done / chunks, 0-1',
    }),
  })
  .meta({ id: 'StatusResult' });

export const NoteIdParams = z.object({ id: z.uuid() });
