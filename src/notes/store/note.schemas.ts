import { z } from 'zod';
import { TimestampSchema } from '../../platform/http/schemas.ts';
import { REVIEW_REASONS } from '../../providers/drafting/port.ts';
import { PlanSchema, VisitDateSchema } from './plan.schemas.ts';
import { TimeRangeSchema } from './time-range.schemas.ts';
import { SpeciesSchema, VitalSchema } from './vitals.schemas.ts';

export const TranscriptionStatusSchema = z.enum(['pending', 'processing', 'completed', 'failed']);

export const NoteStyleSchema = z.enum(['verbatim', 'clinical']).meta({
  id: 'NoteStyle',
  description:
    "`verbatim`: the transcript's own sentences filed under the sections (offline, the default). `clinical`: concise " +
    'clinical prose drafted by a language model, every sentence citing the transcript lines behind it and checked ' +
    'against them (see `review_flags`). While a note waits this is the style asked for; once completed, the style ' +
    'its sections were written in (`verbatim` when the draft could not be used, with a `drafting_*` flag).',
});

/** A live note's capture (notes/live/); absent on notes uploaded in one piece. */
export const CaptureSchema = z
  .object({
    state: z
      .enum(['open', 'closed'])
      .meta({ description: '`open` while parts are accepted; `closed` once completed (by the client or for idleness)' }),
    parts: z.number().int().meta({ description: 'Parts held' }),
    seconds: z.number().meta({ description: 'Seconds of audio held (the parts joined in order)' }),
  })
  .meta({ id: 'Capture', description: 'Live capture progress (POST /notes/live); absent on notes uploaded in one piece' });

export const ReviewFlagSchema = z
  .object({
    section: z.string().nullable().meta({
      description:
        "Label of the section (of the note's template) the sentence was drafted for; null for the drafting_* and simulated_transcript reasons",
    }),
    sentence: z
      .string()
      .nullable()
      .meta({ description: 'The drafted sentence, word for word; null for the drafting_* and simulated_transcript reasons' }),
    reason: z.enum(REVIEW_REASONS).meta({
      description:
        '`ungrounded`: the sentence states a number, dose, unit, frequency, duration, drug or side (direito/esquerdo) ' +
        'not found in the transcript lines it cites (`token` names it). `no_citation`: the sentence cites no line. ' +
        'Sentences flagged `ungrounded` or `no_citation` are removed from the section and kept only here. ' +
        '`invalid_citation`: the sentence cites a line that does not exist (`token`); the draft is then not used. ' +
        '`drafting_unavailable`: the drafting server could not be reached (after retries) or is not configured; ' +
        '`drafting_invalid`: its answer was unusable (not JSON, unknown label, citation out of range, nothing grounded). ' +
        'With a drafting_* flag the note was written `verbatim`. ' +
        '`vital_mismatch`: the sentence states a vital (`token`: its words) whose value differs from every value of that ' +
        'vital read from the transcript (see `vitals`); the sentence is kept, for the veterinarian to check. ' +
        '`plan_mismatch`: the sentence names a medication that is not in the plan read from the transcript, or the same ' +
        'drug with another dose or interval (`token`: the drug, the dose or the interval as the plan would write it); the ' +
        'sentence is kept, for the veterinarian to check (see `plan`). ' +
        '`capture_auto_closed`: a live note was completed automatically after LIVE_CAPTURE_IDLE_SECONDS without a new ' +
        'part, with the parts it had. ' +
        '`simulated_transcript`: the transcript was made up by the sandbox provider, not recognised from the audio ' +
        "(see the note's `simulated`); nothing in the note comes from the consultation. " +
        '`possible_drug_misrecognition`: a word (or two written apart) of the transcript is no known word or drug but ' +
        'is close in spelling and sound to a drug of the lexicon, so the speech-to-text model may have misheard it ' +
        '(`said`, `suggestion`, `evidence`; `sentence`: the transcript words around it; `token`: `said`). The text is ' +
        'not changed, and the plan reads it as the drug it resembles under the name as said.',
    }),
    token: z.string().nullable().meta({ description: 'What could not be found, as the sentence wrote it ("50 mg", "direito")' }),
    said: z.string().optional().meta({ description: '`possible_drug_misrecognition` only: the words as transcribed ("carpofeno")' }),
    suggestion: z
      .string()
      .optional()
      .meta({ description: '`possible_drug_misrecognition` only: the lexicon drug they resemble ("carprofeno")' }),
    evidence: TimeRangeSchema.nullable()
      .optional()
      .meta({ description: '`possible_drug_misrecognition` only: when the words were said; null without timed segments' }),
  })
  .meta({ id: 'ReviewFlag', description: 'Something the veterinarian must review before signing the note' });

export const NoteSectionSchema = z
  .object({
    id: z.uuid(),
    note_id: z.uuid(),
    title: z.string(),
    label: z.string(),
    content: z.string().meta({ description: 'In a clinical note, its sentences joined by a space' }),
    evidence: z.array(TimeRangeSchema).meta({
      description:
        'The transcript time ranges (seconds) behind the section: in a clinical note, the segments its sentences cite, ' +
        'in time order; in a verbatim note, the segments whose sentences it holds. Empty when the transcript had no ' +
        'timed segments.',
    }),
    order: z.string().meta({ description: 'Numeric string, "1", "2", ...' }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: 'NoteSection' });

/** The PATCH /note_sections answer: the section's fields the API description lists for it. */
export const UpdatedNoteSectionSchema = NoteSectionSchema.omit({ evidence: true }).meta({ id: 'UpdatedNoteSection' });

export const RecordStatusSchema = z.enum(['draft', 'signed', 'amended']).meta({
  id: 'RecordStatus',
  description:
    '`draft`: not signed (sections may be edited, the note retried). `signed`: signed by a veterinarian and locked. ' +
    '`amended`: signed, then corrected by at least one amendment (docs/notes-record.md).',
});

export const SignerSchema = z
  .object({
    name: z.string().trim().min(1).max(200).meta({ example: 'Dra. Ana Souza' }),
    license: z.string().trim().min(1).max(50).meta({ description: 'Licence number', example: 'CRMV-SP 12345' }),
  })
  .meta({ id: 'Signer', description: 'The responsible veterinarian: name and CRMV licence' });

export const HashVersionSchema = z.union([z.literal(1), z.literal(2)]).meta({
  id: 'HashVersion',
  description:
    'The canonical form of this link of the hash chain (docs/notes-record.md): 2 for signatures and amendments made since ' +
    'the chain covers the whole record (patient, sections, vitals, plan; an amendment also its reason, signer, time and the ' +
    'previous hash); 1 for those made before (the sections and the original signature only), which keep it and still verify.',
});

export const SignatureSchema = z
  .object({
    signed_by: SignerSchema,
    signed_at: TimestampSchema,
    key_id: z.uuid().meta({ description: 'The API key the signature was made with' }),
    flags_acknowledged: z.boolean().meta({ description: 'True when review flags were open and the signer acknowledged them' }),
    content_sha256: z.string().meta({
      description:
        'Hex SHA-256 of the RFC 8785 canonical JSON of the note as signed (docs/notes-record.md, "The hash chain"). ' +
        'Version 2: {hash_version, note_id, patient: {name, external_id, species}, sections, vitals, plan, signed_by, ' +
        'signed_at}; version 1 (signatures made before it): {note_id, sections, signed_by, signed_at}. Amendments extend the chain from it.',
    }),
    hash_version: HashVersionSchema,
  })
  .meta({ id: 'NoteSignature' });

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
    note_style: NoteStyleSchema,
    record_status: RecordStatusSchema,
    species: SpeciesSchema.nullable().meta({
      description: "From the upload's metadata `species`, else detected in the transcript when the note completes; null when neither says",
    }),
    template: z.object({ slug: z.string().meta({ example: 'soap' }), name: z.string().meta({ example: 'SOAP' }) }).meta({
      description:
        'The template the note is written in, as it was when the note was made (later changes or a deletion never ' +
        "alter it); its sections carry the template's labels and titles, in the template's order",
    }),
    capture: CaptureSchema.optional(),
    simulated: z.boolean().meta({
      description:
        'true when the note was written from a simulated transcript: the `sandbox` transcription provider (the default ' +
        'when no transcription server is configured) does not recognise speech, it makes up a plausible consultation ' +
        "from the audio's hash. Such a note also has a `simulated_transcript` review flag, and its exports and webhooks " +
        'say so. false for notes a real provider transcribed, and while a note waits.',
    }),
    note_sections: z.array(NoteSectionSchema).optional().meta({ description: 'Single-note fetch only; empty unless completed' }),
    review_flags: z
      .array(ReviewFlagSchema)
      .optional()
      .meta({ description: 'Single-note fetch and note.completed webhook only; empty when nothing needs review or not completed' }),
    signature: SignatureSchema.nullable().optional().meta({ description: 'Single-note fetch and webhooks only; null while unsigned' }),
    vitals: z
      .array(VitalSchema)
      .optional()
      .meta({
        description:
          'Single-note fetch and note.completed webhook only: the vitals said in the consultation (temperature, weight, heart and ' +
          'respiratory rate, capillary refill time, body condition score, dehydration, mucous membranes), one entry per distinct ' +
          "value, flagged against the species' reference ranges when the note completed; [] when none was said or not completed",
      }),
    audio: z
      .object({
        available: z.boolean().meta({ description: 'false once the recording was deleted (GET /notes/{id}/audio → 410 AUDIO_EXPIRED)' }),
        deleted_at: TimestampSchema.nullable().meta({ description: "When the clinic's audio retention deleted it; null while kept" }),
      })
      .optional()
      .meta({
        description:
          "Single-note fetch and webhooks only: the recording, kept or deleted by the clinic's audio retention " +
          '(`audio_retention_days` in /settings). The note, its transcript and sections stay either way.',
      }),
    visit_date: VisitDateSchema.nullable()
      .optional()
      .meta({
        description:
          "Single-note fetch and webhooks only: the day of the consultation (the upload's `visit_date`, else the day the note " +
          "was created in the clinic's `timezone`); the plan's follow-ups count from it",
      }),
    plan: PlanSchema.nullable()
      .optional()
      .meta({
        description:
          'Single-note fetch and webhooks only: what the veterinarian decided (medications, exams, vaccines, follow-ups), ' +
          'read from the transcript when the note completed and re-read when a section is edited or amended; replaced by ' +
          '`PUT /notes/{id}/plan`. Each list `[]` when empty; null only while not completed (docs/notes-plan.md).',
      }),
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
    capture: CaptureSchema.optional(),
  })
  .meta({ id: 'StatusResult' });

export const NoteIdParams = z.object({ id: z.uuid() });
