import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../callers.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { reextractEditedPlan } from '../plan/section-edit.ts';
import { refuseSigned } from '../store/locked.ts';
import { toSectionBody } from '../store/note-view.ts';
import type { SectionRow } from '../store/notes.repo.ts';
import { lockNoteRecord, noteOfSection } from '../store/record.repo.ts';
import { reextractEditedVitals } from '../vitals/section-edit.ts';
import { insertSectionVersion, lockSectionWithClinic, updateSection } from './sections.repo.ts';

export interface SectionEdit {
  title: string;
  content: string;
  order: string;
  label?: string;
}

/**
 * Replaces a section's title, content, order (and label), keeping the previous state as a version
 * and both states in the note's history. The note's row is locked first (as a signature locks it),
 * then the section: a signed note answers 409 NOTE_SIGNED, and an edit racing a signature either
 * committed before it or is refused.
 */
async function edit({ db }: { db: Db }, caller: NotesCaller, sectionId: string, change: SectionEdit) {
  return db.transaction(async (tx) => {
    const noteId = await noteOfSection(sectionId, tx);
    if (!noteId) throw new AppError('SECTION_NOT_FOUND', 'Section not found');
    const note = await lockNoteRecord(noteId, tx);
    const current = await lockSectionWithClinic(sectionId, tx);
    if (!note || !current) throw new AppError('SECTION_NOT_FOUND', 'Section not found');
    if (current.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This section belongs to another clinic');
    refuseSigned(note);
    const old = current.section;
    await insertSectionVersion(old, caller.keyId, tx);
    const updated = await updateSection(
      old,
      {
        title: change.title,
        content: change.content,
        order: String(Number(change.order)),
        position: Number(change.order),
        label: change.label ?? old.label,
      },
      tx,
    );
    if (!updated) throw new AppError('SECTION_NOT_FOUND', 'Section not found');
    // Vitals whose words the edit changed are read again from the new text (notes-vitals.md).
    await reextractEditedVitals({ noteId, clinicId: current.clinicId, before: old.content, after: change.content }, tx);
    // ... and so are the plan's items (notes-plan.md, "Editing").
    await reextractEditedPlan({ noteId, before: old.content, after: change.content }, tx);
    await recordNoteEvent(tx, noteId, 'section_edited', caller, { section_id: sectionId, before: stateOf(old), after: stateOf(updated) });
    return toSectionBody(updated);
  });
}

const stateOf = ({ title, label, content, order }: SectionRow) => ({ title, label, content, order });

export function sectionsService(deps: { db: Db }) {
  return bindService(deps, { edit });
}

export type SectionsService = ReturnType<typeof sectionsService>;
