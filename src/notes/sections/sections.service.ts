import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { noteSections, noteSectionVersions, notes } from '../../platform/db/schema/index.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../auth/key-authenticator.ts';
import { toSectionBody } from '../notes/note-view.ts';

export interface SectionEdit {
  title: string;
  content: string;
  order: string;
  label?: string;
}

/**
 * Replaces a section's title, content, order (and label), keeping the previous state as a version.
 * `updated_at` always moves forward, by at least a second, so a client comparing the second-precision
 * timestamps sees every edit.
 */
export async function editSection(db: Db, caller: NotesCaller, sectionId: string, edit: SectionEdit) {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ section: noteSections, clinicId: notes.clinicId })
      .from(noteSections)
      .innerJoin(notes, eq(notes.id, noteSections.noteId))
      .where(eq(noteSections.id, sectionId))
      .for('update', { of: noteSections });
    if (!current) throw new AppError('SECTION_NOT_FOUND', 'Section not found');
    if (current.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This section belongs to another clinic');
    const old = current.section;
    await tx.insert(noteSectionVersions).values({
      sectionId: old.id,
      noteId: old.noteId,
      title: old.title,
      label: old.label,
      content: old.content,
      order: old.order,
      versionUpdatedAt: old.updatedAt,
      replacedByKeyId: caller.keyId,
    });
    const [updated] = await tx
      .update(noteSections)
      .set({
        title: edit.title,
        content: edit.content,
        order: String(Number(edit.order)),
        position: Number(edit.order),
        label: edit.label ?? old.label,
        updatedAt: sql`greatest(now(), date_trunc('second', ${noteSections.updatedAt}) + interval '1 second')`,
      })
      .where(eq(noteSections.id, sectionId))
      .returning();
    await tx.update(notes).set({ updatedAt: sql`now()` }).where(eq(notes.id, old.noteId));
    if (!updated) throw new AppError('SECTION_NOT_FOUND', 'Section not found');
    return toSectionBody(updated);
  });
}
