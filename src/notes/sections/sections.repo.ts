import type { Db } from '../../platform/db/client.ts';
import { eq, sql } from '../../platform/db/drizzle.ts';
import { noteSections, noteSectionVersions, notes } from '../../platform/db/schema/index.ts';
import type { SectionRow } from '../store/notes.repo.ts';

/** The section and its note's clinic, the section row locked until the transaction ends. */
export async function lockSectionWithClinic(id: string, tx: Db): Promise<{ section: SectionRow; clinicId: string } | undefined> {
  const [row] = await tx
    .select({ section: noteSections, clinicId: notes.clinicId })
    .from(noteSections)
    .innerJoin(notes, eq(notes.id, noteSections.noteId))
    .where(eq(noteSections.id, id))
    .for('update', { of: noteSections });
  return row;
}

/** Keeps the section as it is now as a version, replaced by the key `keyId`. */
export async function insertSectionVersion(section: SectionRow, keyId: string, tx: Db): Promise<void> {
  await tx.insert(noteSectionVersions).values({
    sectionId: section.id,
    noteId: section.noteId,
    title: section.title,
    label: section.label,
    content: section.content,
    order: section.order,
    versionUpdatedAt: section.updatedAt,
    replacedByKeyId: keyId,
  });
}

/**
 * New title, content, order and label. `updated_at` is the time of the edit, as every timestamp the
 * API writes (docs/decisions.md, "Timestamps"): never pushed past it, so nothing that happens after
 * the edit (its note's `updated_at`, a signature, a history event) shows an earlier time; never
 * moved back either. The note's `updated_at` moves too.
 */
export async function updateSection(
  section: Pick<SectionRow, 'id' | 'noteId'>,
  values: Pick<SectionRow, 'title' | 'content' | 'order' | 'position' | 'label'>,
  tx: Db,
): Promise<SectionRow | undefined> {
  const [updated] = await tx
    .update(noteSections)
    .set({
      ...values,
      updatedAt: sql`greatest(now(), ${noteSections.updatedAt})`,
    })
    .where(eq(noteSections.id, section.id))
    .returning();
  await tx.update(notes).set({ updatedAt: sql`now()` }).where(eq(notes.id, section.noteId));
  return updated;
}
