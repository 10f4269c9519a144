import type { Db } from '../../platform/db/client.ts';
import { and, asc, eq, inArray, isNotNull, isNull, lt, or, sql } from '../../platform/db/drizzle.ts';
import { noteParts, notes, type StoredChunkTranscript } from '../../platform/db/schema/index.ts';
import type { NoteRow } from '../store/notes.repo.ts';

export type PartRow = typeof noteParts.$inferSelect;
export type NewPart = typeof noteParts.$inferInsert;

/** The note, its row locked until the transaction ends: parts, completion and idle close of one note take turns. */
export async function lockNote(id: string, tx: Db): Promise<NoteRow | undefined> {
  const [row] = await tx.select().from(notes).where(eq(notes.id, id)).for('update');
  return row;
}

export async function findPart(noteId: string, part: number, db: Db): Promise<PartRow | undefined> {
  const [row] = await db
    .select()
    .from(noteParts)
    .where(and(eq(noteParts.noteId, noteId), eq(noteParts.part, part)));
  return row;
}

/** The note's parts in part order. */
export async function partsOf(noteId: string, db: Db): Promise<PartRow[]> {
  return db.select().from(noteParts).where(eq(noteParts.noteId, noteId)).orderBy(asc(noteParts.part));
}

/** The stored parts of these notes, note by note. */
export async function partKeysWithNotes(noteIds: readonly string[], db: Db): Promise<{ noteId: string; storageKey: string }[]> {
  if (noteIds.length === 0) return [];
  return db
    .select({ noteId: noteParts.noteId, storageKey: noteParts.storageKey })
    .from(noteParts)
    .where(inArray(noteParts.noteId, [...noteIds]));
}

export async function partNumbersOf(noteId: string, db: Db): Promise<number[]> {
  const rows = await db.select({ part: noteParts.part }).from(noteParts).where(eq(noteParts.noteId, noteId)).orderBy(asc(noteParts.part));
  return rows.map((row) => row.part);
}

/** Records a part and adds it to its note's totals (bytes and seconds: limits, quota) and idle clock. */
export async function insertPart(part: NewPart, tx: Db): Promise<PartRow> {
  const [row] = await tx.insert(noteParts).values(part).returning();
  if (!row) throw new Error('insert returned no row');
  await tx
    .update(notes)
    .set({
      audioBytes: sql`${notes.audioBytes} + ${part.bytes}`,
      audioDurationSeconds: sql`${notes.audioDurationSeconds} + ${part.seconds}`,
      captureParts: sql`${notes.captureParts} + 1`,
      captureTouchedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(eq(notes.id, part.noteId));
  return row;
}

/** open → closed (or auto_closed); false when the capture was not open. */
export async function closeCapture(noteId: string, state: 'closed' | 'auto_closed', tx: Db): Promise<boolean> {
  const rows = await tx
    .update(notes)
    .set({ captureState: state, updatedAt: sql`now()` })
    .where(and(eq(notes.id, noteId), eq(notes.captureState, 'open')))
    .returning({ id: notes.id });
  return rows.length > 0;
}

export async function savePartTranscript(
  noteId: string,
  part: number,
  transcript: StoredChunkTranscript,
  overlapSeconds: number,
  db: Db,
): Promise<void> {
  // Not once the note completed: a part's job that finishes after the note's own job (which sent
  // the part too) must not leave a transcript behind the cleanup.
  await db
    .update(noteParts)
    .set({ transcript, overlapSeconds, transcribingUntil: null })
    .where(
      and(
        eq(noteParts.noteId, noteId),
        eq(noteParts.part, part),
        sql`exists (select 1 from ${notes} where ${notes.id} = ${noteId} and ${notes.transcriptionStatus} <> 'completed')`,
      ),
    );
}

/** Once the note's transcript is stored, its parts' transcripts are redundant (the parts stay). */
export async function clearPartTranscripts(noteId: string, db: Db): Promise<void> {
  await db.update(noteParts).set({ transcript: null, overlapSeconds: null, transcribingUntil: null }).where(eq(noteParts.noteId, noteId));
}

const leaseEnd = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`;

/**
 * Takes the part's transcription lease for `seconds`: true when no transcript is held and no other
 * worker's lease still runs (one worker at a time sends a part to the speech-to-text server).
 */
export async function leasePart(noteId: string, part: number, seconds: number, db: Db): Promise<boolean> {
  const rows = await db
    .update(noteParts)
    .set({ transcribingUntil: leaseEnd(seconds) })
    .where(
      and(
        eq(noteParts.noteId, noteId),
        eq(noteParts.part, part),
        isNull(noteParts.transcript),
        or(isNull(noteParts.transcribingUntil), lt(noteParts.transcribingUntil, sql`now()`)),
      ),
    )
    .returning({ part: noteParts.part });
  return rows.length > 0;
}

/** Keeps a held lease running while the request does (a dead worker's lease runs out instead). */
export async function renewPartLease(noteId: string, part: number, seconds: number, db: Db): Promise<void> {
  await db
    .update(noteParts)
    .set({ transcribingUntil: leaseEnd(seconds) })
    .where(and(eq(noteParts.noteId, noteId), eq(noteParts.part, part), isNotNull(noteParts.transcribingUntil)));
}

/** Gives the lease back after a failed request: the next worker may send the part at once. */
export async function releasePartLease(noteId: string, part: number, db: Db): Promise<void> {
  await db
    .update(noteParts)
    .set({ transcribingUntil: null })
    .where(and(eq(noteParts.noteId, noteId), eq(noteParts.part, part)));
}

/** The part's transcript if held, and whether another worker's lease on it still runs. */
export async function partTranscriptState(
  noteId: string,
  part: number,
  db: Db,
): Promise<{ transcript: StoredChunkTranscript | null; overlapSeconds: number | null; leased: boolean } | undefined> {
  const [row] = await db
    .select({
      transcript: noteParts.transcript,
      overlapSeconds: noteParts.overlapSeconds,
      leased: sql<boolean>`coalesce(${noteParts.transcribingUntil} > now(), false)`,
    })
    .from(noteParts)
    .where(and(eq(noteParts.noteId, noteId), eq(noteParts.part, part)));
  return row;
}

/** The joined recording of a closed live note becomes the note's audio (as an upload's is). */
export async function setJoinedRecording(
  noteId: string,
  recording: { key: string; format: NoteRow['audioFormat']; bytes: number; sha256: string },
  db: Db,
): Promise<boolean> {
  const rows = await db
    .update(notes)
    .set({ audioKey: recording.key, audioFormat: recording.format, audioBytes: recording.bytes, audioSha256: recording.sha256 })
    // Not once the audio retention deleted the parts meanwhile: the joined file would outlive them.
    .where(and(eq(notes.id, noteId), eq(notes.audioKey, ''), isNull(notes.audioDeletedAt)))
    .returning({ id: notes.id });
  return rows.length > 0;
}
