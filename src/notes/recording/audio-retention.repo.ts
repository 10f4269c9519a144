import type { Db } from '../../platform/db/client.ts';
import { and, inArray, isNull, sql } from '../../platform/db/drizzle.ts';
import { notes } from '../../platform/db/schema/index.ts';

/** Clinics that set an audio retention, with their number of days. */
export async function clinicsWithAudioRetention(db: Db): Promise<{ clinicId: string; days: number }[]> {
  const result = (await db.execute(sql`
    select clinic_id, audio_retention_days from clinic_settings where audio_retention_days is not null order by clinic_id`)) as unknown as {
    rows: { clinic_id: string; audio_retention_days: number }[];
  };
  return result.rows.map((row) => ({ clinicId: row.clinic_id, days: Number(row.audio_retention_days) }));
}

/** Where a walk over expired recordings stopped: the last note seen (its completion time as Postgres wrote it). */
export interface RecordingCursor {
  completedAt: string;
  id: string;
}

export interface ExpiredRecording extends RecordingCursor {
  audioKey: string;
}

/**
 * Up to `limit` completed notes of the clinic whose recording is still kept and that completed at or
 * before `cutoff`, after `cursor`, oldest first (index notes_audio_kept_idx). The cursor keeps the
 * database's microseconds (as text): a note whose file could not be deleted is not met again.
 */
export async function expiredRecordings(
  clinicId: string,
  cutoff: Date,
  cursor: RecordingCursor | null,
  limit: number,
  db: Db,
): Promise<ExpiredRecording[]> {
  const result = (await db.execute(sql`
    select id, audio_key, completed_at::text as completed_at from notes
    where clinic_id = ${clinicId} and transcription_status = 'completed' and audio_deleted_at is null
      and completed_at <= ${cutoff.toISOString()}::timestamptz
      ${cursor ? sql`and (completed_at, id) > (${cursor.completedAt}::timestamptz, ${cursor.id}::uuid)` : sql``}
    order by completed_at, id
    limit ${limit}`)) as unknown as { rows: { id: string; audio_key: string; completed_at: string }[] };
  return result.rows.map((row) => ({ id: row.id, audioKey: row.audio_key, completedAt: row.completed_at }));
}

/** Marks the recordings deleted (those not marked yet); returns the notes it marked. */
export async function markAudioDeleted(ids: readonly string[], tx: Db): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await tx
    .update(notes)
    .set({ audioDeletedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(inArray(notes.id, [...ids]), isNull(notes.audioDeletedAt)))
    .returning({ id: notes.id });
  return rows.map((row) => row.id);
}
