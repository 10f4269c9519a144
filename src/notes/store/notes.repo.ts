import type { Db } from '../../platform/db/client.ts';
import { and, asc, eq, getTableColumns, gte, inArray, isNotNull, isNull, lt, type SQL, sql } from '../../platform/db/drizzle.ts';
import {
  clinics,
  noteErasures,
  noteParts,
  noteRenders,
  noteRetries,
  noteSections,
  notes,
  type StoredTranscript,
  type StoredVital,
} from '../../platform/db/schema/index.ts';
import type { NoteStyle, ReviewFlag, TimeRange } from '../../providers/drafting/port.ts';
import type { Plan } from './plan.schemas.ts';

export type NoteRow = typeof notes.$inferSelect;

/** A section processing wrote (a section of the note's template), with the time ranges of the transcript it rests on. */
export interface WrittenSection {
  label: string;
  title: string;
  content: string;
  evidence: TimeRange[];
}

/** What completing a note stores: its style (verbatim after a fallback), sections and flags. */
export interface WrittenContent {
  style: NoteStyle;
  sections: WrittenSection[];
  reviewFlags: ReviewFlag[];
  /** The vitals read from the transcript, flagged; and the species (upload's, else detected). */
  vitals?: { species: string | null; vitals: StoredVital[] };
  /** The transcript was made up (sandbox), not recognised: stored as the note's `simulated`. */
  simulated?: boolean;
  /** The plan read from the transcript (notes/plan/); its worklist rows are written beside it (plan.repo.ts). */
  plan?: Plan;
}
export type NewNote = typeof notes.$inferInsert;
export type SectionRow = typeof noteSections.$inferSelect;

/** A section as the single-note read brings it back (timestamps as JSON strings) or as a row. */
export type SectionFields = Omit<SectionRow, 'position' | 'createdAt' | 'updatedAt'> & {
  createdAt: Date | string;
  updatedAt: Date | string;
};

/**
 * Every column of a note but the transcript: what the API shows of a note (the transcript has its
 * own route and can weigh tens of kilobytes, so reads that do not show it do not fetch it).
 */
const { transcript: _transcript, template: _template, ...noteColumns } = getTableColumns(notes);

/** What the API shows of a note's template: its slug and name (its sections stay in the row for processing). */
export interface NoteTemplateName {
  slug: string;
  name: string;
}

// Plain SQL names, as in prepareNoteWithSections: both reads select from `notes` alone.
const noteColumnsWithoutTranscript = {
  ...noteColumns,
  template: sql<NoteTemplateName | null>`case when notes.template is null then null
    else jsonb_build_object('slug', notes.template->>'slug', 'name', notes.template->>'name') end`.as('template'),
};

export { noteColumnsWithoutTranscript };

/** A note's signature as the views read it (note_signatures; timestamps as JSON strings or dates). */
export interface SignatureFields {
  signedByName: string;
  signedByLicense: string;
  signedAt: Date | string;
  keyId: string;
  flagsAcknowledged: boolean;
  contentSha256: string;
}
export type NoteSummaryRow = Omit<NoteRow, 'transcript' | 'template'> & { template: NoteTemplateName | null };

export async function insertNote(note: NewNote, db: Db): Promise<NoteRow> {
  const [row] = await db.insert(notes).values(note).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function findNote(id: string, db: Db): Promise<NoteRow | undefined> {
  const [row] = await db.select().from(notes).where(eq(notes.id, id));
  return row;
}

export async function sectionsOf(noteId: string, db: Db): Promise<SectionRow[]> {
  return db.select().from(noteSections).where(eq(noteSections.noteId, noteId)).orderBy(asc(noteSections.position));
}

/**
 * Locks the clinic's row until the transaction ends and returns its quota. One lock for what must
 * not interleave within a clinic: quota checks (uploads, live parts, retries), settings changes
 * (read, merge, write back) and a template deletion that resets the default naming it.
 *
 * `FOR NO KEY UPDATE`, not `FOR UPDATE`: it still queues every other holder, but lets rows that
 * merely reference the clinic be written meanwhile (their foreign-key check takes `KEY SHARE`).
 * With `FOR UPDATE`, a retry holding the clinic and waiting for its note deadlocked against the
 * worker holding that note and inserting a row of the same clinic.
 */
export async function lockClinic(clinicId: string, tx: Db): Promise<{ quotaMinutes: number | null } | undefined> {
  const [row] = await tx.select({ quotaMinutes: clinics.quotaMinutes }).from(clinics).where(eq(clinics.id, clinicId)).for('no key update');
  return row;
}

/** Locks the clinic row (serialising quota checks of one clinic: lockClinic) and returns its quota. */
export async function lockClinicQuota(clinicId: string, tx: Db): Promise<number | null> {
  return (await lockClinic(clinicId, tx))?.quotaMinutes ?? null;
}

/**
 * Seconds of audio the clinic had processed since `since`: its uploads (failed notes included:
 * they were processed), each counted when it was made; its live notes' parts, each counted when it
 * arrived (a live note created on the 31st and filled on the 1st is the new month's); its retries,
 * each counted when it was made; and what notes deleted since then had charged
 * (note_erasures.quota_seconds: a deletion gives no processing back).
 */
export async function audioSecondsSince(clinicId: string, since: Date, tx: Db): Promise<number> {
  const [uploaded] = await tx
    .select({ seconds: sql<number>`coalesce(sum(${notes.audioDurationSeconds}), 0)::float8` })
    .from(notes)
    .where(and(eq(notes.clinicId, clinicId), gte(notes.createdAt, since), isNull(notes.captureState)));
  const [retried] = await tx
    .select({ seconds: sql<number>`coalesce(sum(${noteRetries.audioDurationSeconds}), 0)::float8` })
    .from(noteRetries)
    .where(and(eq(noteRetries.clinicId, clinicId), gte(noteRetries.createdAt, since)));
  const [erased] = await tx
    .select({ seconds: sql<number>`coalesce(sum(${noteErasures.quotaSeconds}), 0)::float8` })
    .from(noteErasures)
    .where(and(eq(noteErasures.clinicId, clinicId), gte(noteErasures.createdAt, since)));
  return (
    Number(uploaded?.seconds ?? 0) +
    (await liveSecondsSince(eq(notes.clinicId, clinicId), since, tx)) +
    Number(retried?.seconds ?? 0) +
    Number(erased?.seconds ?? 0)
  );
}

/**
 * Seconds of the parts of live notes (those `which` picks) that arrived since `since`. A note that
 * received a part since then was touched since then (`capture_touched_at`, index
 * notes_live_touched_idx): only those notes' parts are read.
 */
export async function liveSecondsSince(which: SQL, since: Date, tx: Db): Promise<number> {
  const [live] = await tx
    .select({ seconds: sql<number>`coalesce(sum(${noteParts.seconds}), 0)::float8` })
    .from(noteParts)
    .innerJoin(notes, eq(notes.id, noteParts.noteId))
    .where(and(which, isNotNull(notes.captureState), gte(notes.captureTouchedAt, since), gte(noteParts.receivedAt, since)));
  return Number(live?.seconds ?? 0);
}

/**
 * A worker takes the note: pending (or processing, when a crashed worker's job is retried) →
 * processing. Completed and failed notes are left alone, which makes a re-run a no-op.
 */
export async function claimForProcessing(id: string, db: Db): Promise<NoteRow | undefined> {
  const [row] = await db
    .update(notes)
    .set({
      transcriptionStatus: 'processing',
      processingStartedAt: sql`now()`,
      attempts: sql`${notes.attempts} + 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(notes.id, id), inArray(notes.transcriptionStatus, ['pending', 'processing'])))
    .returning();
  return row;
}

/**
 * processing → completed with its transcript, the sections replaced (never duplicated). Several
 * statements: run it in the transaction that also records the note's event (processing/note-outcome.ts).
 * False when the note had left `processing` meanwhile (nothing changed).
 */
export async function markNoteCompleted(id: string, transcript: StoredTranscript, written: WrittenContent, tx: Db): Promise<boolean> {
  const { sections } = written;
  const [note] = await tx
    .update(notes)
    .set({
      transcriptionStatus: 'completed',
      transcript,
      noteStyle: written.style,
      reviewFlags: written.reviewFlags,
      ...(written.vitals ? { species: written.vitals.species, vitals: written.vitals.vitals } : {}),
      ...(written.plan ? { plan: written.plan } : {}),
      simulated: written.simulated === true,
      failure: null,
      completedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(notes.id, id), eq(notes.transcriptionStatus, 'processing')))
    .returning({ id: notes.id });
  if (!note) return false;
  await tx.delete(noteSections).where(eq(noteSections.noteId, id));
  if (sections.length > 0) {
    await tx.insert(noteSections).values(
      sections.map((section, index) => ({
        noteId: id,
        label: section.label,
        title: section.title,
        content: section.content,
        evidence: section.evidence,
        order: String(index + 1),
        position: index + 1,
      })),
    );
  }
  return true;
}

/** pending/processing → failed with its failure; false when the note had already finished. */
export async function markNoteFailed(id: string, failure: { code: string; message: string }, tx: Db): Promise<boolean> {
  const rows = await tx
    .update(notes)
    .set({ transcriptionStatus: 'failed', failure, updatedAt: sql`now()` })
    .where(and(eq(notes.id, id), inArray(notes.transcriptionStatus, ['pending', 'processing'])))
    .returning({ id: notes.id });
  return rows.length > 0;
}

/**
 * A retryable failure: processing → pending while the job waits out its backoff; false when the
 * note had left `processing` meanwhile (nothing changed).
 */
export async function releaseNote(id: string, db: Db): Promise<boolean> {
  const released = await db
    .update(notes)
    .set({ transcriptionStatus: 'pending', updatedAt: sql`now()` })
    .where(and(eq(notes.id, id), eq(notes.transcriptionStatus, 'processing')))
    .returning({ id: notes.id });
  return released.length > 0;
}

/** Notes a worker took before `before` and never finished: their worker died. */
export async function staleProcessingNotes(before: Date, db: Db, limit = 100): Promise<NoteRow[]> {
  return db
    .select()
    .from(notes)
    .where(and(eq(notes.transcriptionStatus, 'processing'), lt(notes.processingStartedAt, before)))
    .limit(limit);
}

/**
 * The single-note read, a hot path: one prepared statement brings the note (without its transcript)
 * and its sections, ordered, as a JSON array.
 */
export function prepareNoteWithSections(db: Db) {
  // Plain SQL names: in a one-table select drizzle leaves columns unqualified, and the correlated
  // subquery must say which table's id it means. The sections' timestamps come in the API's form
  // (whole seconds, UTC, `Z`): no Date is parsed and formatted again for each (docs/benchmarks.md).
  const statement = db
    .select({
      ...noteColumnsWithoutTranscript,
      sections: sql<SectionFields[]>`coalesce((
        select json_agg(json_build_object(
          'id', s.id, 'noteId', s.note_id, 'label', s.label, 'title', s.title, 'content', s.content,
          'evidence', s.evidence, 'order', s."order",
          'createdAt', to_char(s.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
          'updatedAt', to_char(s.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) order by s.position, s.id)
        from note_sections s where s.note_id = notes.id), '[]'::json)`.as('sections'),
      signature: sql<SignatureFields | null>`(
        select json_build_object('signedByName', g.signed_by_name, 'signedByLicense', g.signed_by_license,
          'signedAt', to_char(g.signed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'keyId', g.key_id,
          'flagsAcknowledged', g.flags_acknowledged, 'contentSha256', g.content_sha256)
        from note_signatures g where g.note_id = notes.id)`.as('signature'),
    })
    .from(notes)
    .where(eq(notes.id, sql.placeholder('id')))
    .prepare('note_with_sections');
  return async (id: string) => (await statement.execute({ id }))[0];
}

/** A note as GET /notes/{id} shows it, rendered when it last changed (note-render.sql); the transcript URL as a path. */
export interface RenderedNote {
  clinicId: string;
  body: string;
}

const renderedColumns = { clinicId: noteRenders.clinicId, body: noteRenders.body };

/**
 * The single-note read, the hot path: one prepared primary-key lookup of the rendered note. Plain
 * SQL, so the driver's row comes back as it is (no column mapping).
 */
export function prepareRenderedNote(db: Db) {
  const statement = db
    .select(renderedColumns)
    .from(noteRenders)
    .where(eq(noteRenders.noteId, sql.placeholder('id')))
    .prepare('rendered_note');
  return async (id: string): Promise<RenderedNote | undefined> => (await statement.execute({ id }))[0];
}

/** The rendered note inside a transaction that changed it (the triggers rendered it at the end of each statement). */
export async function renderedNote(id: string, tx: Db): Promise<RenderedNote | undefined> {
  const [row] = await tx.select(renderedColumns).from(noteRenders).where(eq(noteRenders.noteId, id));
  return row;
}

/**
 * The polling path: one primary-key lookup, prepared once. While a long note is processed in
 * chunks, the share of chunks already transcribed comes along (a count over the note's few rows).
 */
export function prepareNoteStatus(db: Db) {
  const statement = db
    .select({
      clinicId: notes.clinicId,
      status: notes.transcriptionStatus,
      captureState: notes.captureState,
      captureParts: notes.captureParts,
      audioDurationSeconds: notes.audioDurationSeconds,
      progress: sql<number | null>`case when notes.transcription_status = 'processing' then (
        select (count(*) filter (where c.transcript is not null))::float8 / nullif(count(*), 0)
        from note_transcript_chunks c where c.note_id = notes.id) end`.as('progress'),
    })
    .from(notes)
    .where(eq(notes.id, sql.placeholder('id')))
    .prepare('note_status');
  return async (id: string) => (await statement.execute({ id }))[0];
}

/**
 * failed → pending, failure and attempts cleared. A conditional update, so of two simultaneous
 * retries exactly one gets the row back; undefined when the note is not a failed note of the clinic.
 */
export async function requeueFailedNote(id: string, clinicId: string, tx: Db): Promise<{ id: string } | undefined> {
  const [row] = await tx
    .update(notes)
    .set({ transcriptionStatus: 'pending', failure: null, attempts: 0, updatedAt: sql`now()` })
    .where(and(eq(notes.id, id), eq(notes.clinicId, clinicId), eq(notes.transcriptionStatus, 'failed')))
    .returning({ id: notes.id });
  return row;
}
