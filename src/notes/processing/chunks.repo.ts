import type { ChunkRange } from '../../audio/chunk-plan.ts';
import type { Db } from '../../platform/db/client.ts';
import { and, asc, eq, sql } from '../../platform/db/drizzle.ts';
import { noteTranscriptChunks, type StoredChunkTranscript } from '../../platform/db/schema/index.ts';

/**
 * Records `plan` as the note's chunks and returns the transcripts already received for it. A plan
 * that differs from the recorded one (the limits changed between attempts) replaces it: its old
 * transcripts cover other ranges and cannot be stitched with the new ones.
 */
export async function recordChunkPlan(noteId: string, plan: ChunkRange[], db: Db): Promise<Map<number, StoredChunkTranscript>> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(noteTranscriptChunks)
      .where(eq(noteTranscriptChunks.noteId, noteId))
      .orderBy(asc(noteTranscriptChunks.chunkIndex))
      .for('update');
    const same =
      rows.length === plan.length &&
      rows.every((row, i) => row.chunkIndex === plan[i]!.index && row.startSeconds === plan[i]!.start && row.endSeconds === plan[i]!.end);
    if (same) return new Map(rows.flatMap((row) => (row.transcript ? [[row.chunkIndex, row.transcript] as const] : [])));
    await tx.delete(noteTranscriptChunks).where(eq(noteTranscriptChunks.noteId, noteId));
    await tx
      .insert(noteTranscriptChunks)
      .values(plan.map((chunk) => ({ noteId, chunkIndex: chunk.index, startSeconds: chunk.start, endSeconds: chunk.end })));
    return new Map();
  });
}

export async function saveChunkTranscript(noteId: string, chunkIndex: number, transcript: StoredChunkTranscript, db: Db): Promise<void> {
  await db
    .update(noteTranscriptChunks)
    .set({ transcript, completedAt: sql`now()` })
    .where(and(eq(noteTranscriptChunks.noteId, noteId), eq(noteTranscriptChunks.chunkIndex, chunkIndex)));
}

/** Once the note's transcript is stored, its chunks' transcripts are redundant. */
export async function deleteChunks(noteId: string, db: Db): Promise<void> {
  await db.delete(noteTranscriptChunks).where(eq(noteTranscriptChunks.noteId, noteId));
}
