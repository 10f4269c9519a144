import { bigint, boolean, date, index, integer, jsonb, pgTable, real, sql, text, timestamp, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';

export type TranscriptionStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** A consultation note: the uploaded audio, its processing state and, once done, its transcript. */
export const notes = pgTable(
  'notes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /**
     * The name as the list's `name` filter compares it (vetflow_fold: lower case, no accents), kept
     * by Postgres: folding costs ~4 µs a row, a LIKE over the stored fold a tenth of that, and the
     * list reads it from notes_clinic_created_idx without visiting the table (docs/notes-reads.md).
     */
    nameFolded: text('name_folded').generatedAlwaysAs(sql`vetflow_fold(name)`),
    gender: text('gender', { enum: ['male', 'female', 'unidentified'] })
      .notNull()
      .default('unidentified'),
    externalId: text('external_id'),
    metadata: jsonb('metadata').$type<{ key: string; value: string }[]>().notNull().default(sql`'[]'::jsonb`),
    audioName: text('audio_name'),
    /** Where the audio lives in the configured storage. */
    audioKey: text('audio_key').notNull(),
    audioFormat: text('audio_format', { enum: ['mp3', 'wav', 'm4a', 'aac'] }).notNull(),
    audioBytes: bigint('audio_bytes', { mode: 'number' }).notNull(),
    audioSha256: text('audio_sha256').notNull(),
    audioDurationSeconds: real('audio_duration_seconds').notNull(),
    /**
     * When the recording was deleted from storage by the clinic's audio retention (notes/recording/
     * audio-retention.ts); the note, its transcript and sections stay. Null while it is kept.
     */
    audioDeletedAt: timestamp('audio_deleted_at', { withTimezone: true }),
    transcriptionStatus: text('transcription_status', { enum: ['pending', 'processing', 'completed', 'failed'] })
      .$type<TranscriptionStatus>()
      .notNull()
      .default('pending'),
    /**
     * `verbatim` or `clinical`: the style asked for at upload while the note waits, the style its
     * sections were written in once completed (verbatim after a drafting fallback).
     */
    noteStyle: text('note_style', { enum: ['verbatim', 'clinical'] })
      .notNull()
      .default('verbatim'),
    /** What the veterinarian must review before signing (src/providers/drafting/port.ts ReviewFlag). */
    reviewFlags: jsonb('review_flags').$type<StoredReviewFlag[]>().notNull().default(sql`'[]'::jsonb`),
    /** `draft` until signed, then `signed`, `amended` once an amendment exists (notes/record/). */
    recordStatus: text('record_status', { enum: ['draft', 'signed', 'amended'] })
      .notNull()
      .default('draft'),
    /**
     * The template the note is written in, as it was at upload (slug, name, sections): retries use
     * it, and later changes to the template never reach the note. Null on notes made before templates
     * existed, which were written in `padrao`.
     */
    template: jsonb('template').$type<StoredTemplate | null>(),
    /**
     * True when the transcript was made up by the sandbox provider, not recognised from the audio:
     * set when the note completes, shown on the note, its webhooks and exports.
     */
    simulated: boolean('simulated').notNull().default(false),
    failure: jsonb('failure').$type<{ code: string; message: string } | null>(),
    transcript: jsonb('transcript').$type<StoredTranscript | null>(),
    /** From the upload's metadata, else detected in the transcript at completion (notes/vitals/species.ts). */
    species: text('species'),
    /** Vitals read from the transcript at completion, flagged against the clinic's ranges then. */
    vitals: jsonb('vitals').$type<StoredVital[]>().notNull().default(sql`'[]'::jsonb`),
    /**
     * What the veterinarian decided (notes/plan/): medications, exams, vaccines and follow-ups read
     * from the transcript at completion; null until completed (src/notes/store/plan.schemas.ts Plan).
     */
    plan: jsonb('plan').$type<StoredPlan | null>(),
    /**
     * The day of the consultation (`YYYY-MM-DD`): the upload's / live body's `visit_date`, else the
     * day the note was created in the clinic's time zone. Follow-ups' due dates count from it.
     */
    visitDate: date('visit_date', { mode: 'string' }),
    /**
     * The animal's tutor as the upload / live body named them (notes/owner-summary/): whom the
     * owner summary greets and is sent to. Personal data: it goes with the note when erased.
     */
    tutor: jsonb('tutor').$type<StoredTutor | null>(),
    /** Times a worker has taken this note (a crash-looping note is failed after a bound). */
    attempts: integer('attempts').notNull().default(0),
    processingStartedAt: timestamp('processing_started_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /**
     * Live capture (notes/live/): null for a note uploaded in one piece; `open` while parts arrive,
     * `closed` once completed, `auto_closed` when closed for idleness. The audio columns then hold the
     * parts' running totals (bytes, seconds: limits and quota) and, once its parts are joined, the
     * joined recording's key, format and hash (empty key until then, or for ever when they cannot be).
     */
    captureState: text('capture_state', { enum: ['open', 'closed', 'auto_closed'] }),
    /** Parts held (live notes). */
    captureParts: integer('capture_parts').notNull().default(0),
    /** When the last part arrived (or the live note was created): the idle clock. */
    captureTouchedAt: timestamp('capture_touched_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // The list's order (newest first). The folded name and the status ride along so that a filtered
    // list walks this index alone (an index-only scan), newest first, and stops at the page.
    index('notes_clinic_created_idx').on(
      table.clinicId,
      table.createdAt.desc().nullsLast(),
      table.id.desc().nullsLast(),
      table.nameFolded,
      table.transcriptionStatus,
    ),
    // A name matched by few notes: its candidates by trigram, then sorted (note-list.repo.ts).
    index('notes_name_folded_trgm_idx').using('gin', sql`name_folded gin_trgm_ops`),
    index('notes_clinic_external_idx').on(table.clinicId, table.externalId),
    // The audio retention run: a clinic's completed notes whose recording is still kept, by completion time.
    index('notes_audio_kept_idx')
      .on(table.clinicId, table.completedAt, table.id)
      .where(sql`audio_deleted_at is null and transcription_status = 'completed'`),
    // The quota of live notes (notes/store/notes.repo.ts, liveSecondsSince): a clinic's live notes that received a part since a date.
    index('notes_live_touched_idx').on(table.clinicId, table.captureTouchedAt).where(sql`capture_state is not null`),
    index('notes_processing_idx').on(table.transcriptionStatus, table.processingStartedAt).where(sql`transcription_status = 'processing'`),
  ],
);

export interface StoredTranscript {
  text: string;
  language: string | null;
  duration_seconds: number | null;
  segments: { start: number; end: number; text: string; speaker?: string }[];
  provider: string;
  model: string | null;
}

export interface StoredReviewFlag {
  section: string | null;
  sentence: string | null;
  reason: string;
  token: string | null;
  said?: string;
  suggestion?: string;
  evidence?: { start: number; end: number } | null;
}

/** A plan as the API shows it (src/notes/store/plan.schemas.ts Plan). */
export interface StoredPlan {
  medications: Record<string, unknown>[];
  exams: Record<string, unknown>[];
  vaccines: Record<string, unknown>[];
  follow_ups: Record<string, unknown>[];
}

/** The tutor of a note; each field null when not given. `phone` is E.164 (src/platform/phone.ts). */
export interface StoredTutor {
  name: string | null;
  phone: string | null;
  external_id: string | null;
}

/** A vital as the API shows it (src/notes/store/vitals.schemas.ts Vital). */
export interface StoredVital {
  code: string;
  value: number | string;
  unit: string | null;
  comparator: string | null;
  text: string;
  evidence: { start: number; end: number } | null;
  flag: string | null;
}

/** A template as a note keeps it (notes/templates): what it was when the note was made. */
export interface StoredTemplate {
  id: string;
  slug: string;
  name: string;
  sections: { label: string; title: string; includes: string[]; instructions: string | null }[];
}
