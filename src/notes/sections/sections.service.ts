import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../callers.ts';
import { toSectionBody } from '../store/note-view.ts';
import { reextractEditedVitals } from '../vitals/section-edit.ts';
import { insertSectionVersion, lockSectionWithClinic, updateSection } from './sections.repo.ts';

export interface SectionEdit {
  title: string;
  content: string;
  order: string;
  label?: string;
}

export function sectionsService(deps: { db: Db }) {
  return {
    /** Replaces a section's title, content, order (and label), keeping the previous state as a version. */
    edit: (caller: NotesCaller, sectionId: string, edit: SectionEdit) =>
      deps.db.transaction(async (tx) => {
        const current = await lockSectionWithClinic(sectionId, tx);
        if (!current) throw new AppError('SECTION_NOT_FOUND', 'Section not found');
        if (current.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This section belongs to another clinic');
        const old = current.section;
        await insertSectionVersion(old, caller.keyId, tx);
        const updated = await updateSection(
          old,
          {
            title: edit.title,
            content: edit.content,
            order: String(Number(edit.order)),
            position: Number(edit.order),
            label: edit.label ?? old.label,
          },
          tx,
        );
        if (!updated) throw new AppError('SECTION_NOT_FOUND', 'Section not found');
        // Vitals whose words the edit changed are read again from the new text (notes-vitals.md).
        await reextractEditedVitals({ noteId: old.noteId, clinicId: current.clinicId, before: old.content, after: edit.content }, tx);
        return toSectionBody(updated);
      }),
  };
}

export type SectionsService = ReturnType<typeof sectionsService>;
