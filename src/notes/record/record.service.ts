import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { NotesCaller } from '../callers.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { reextractEditedPlan } from '../plan/section-edit.ts';
import { updateSection } from '../sections/sections.repo.ts';
import { refuseSigned } from '../store/locked.ts';
import { toNoteBody } from '../store/note-view.ts';
import { prepareNoteWithSections, sectionsOf } from '../store/notes.repo.ts';
import { ownNote } from '../store/own-note.ts';
import {
  amendmentsOf,
  findNoteOwner,
  findSignature,
  insertAmendment,
  insertSignature,
  lastAmendment,
  lockNoteRecord,
  lockSectionOfNote,
  setRecordStatus,
} from '../store/record.repo.ts';
import { toAmendmentBody } from '../store/record.view.ts';
import { reextractEditedVitals } from '../vitals/section-edit.ts';
import type { NoteEvents } from '../webhooks/note-events.ts';
import { contentSha256 } from './content-hash.ts';
import type { AmendInput, SignInput } from './record.schemas.ts';

export interface RecordDeps {
  db: Db;
  events: NoteEvents;
  /** The single-note read, to answer a signature with the note as GET shows it. */
  noteWithSections: ReturnType<typeof prepareNoteWithSections>;
  publicBaseUrl: string;
}

/**
 * Signs a completed note: the named veterinarian, the hash of its content, `signed`. Refused when
 * already signed (409 NOTE_SIGNED), not completed (422), or with review flags open unless the
 * signer acknowledges them (409 REVIEW_FLAGS_OPEN). Under the note's row lock, so a concurrent
 * section edit either committed before (and is signed) or is refused after.
 */
async function sign(deps: RecordDeps, caller: NotesCaller, noteId: string, input: SignInput) {
  await deps.db.transaction(async (tx) => {
    const note = ownNote(caller, await lockNoteRecord(noteId, tx));
    refuseSigned(note);
    if (note.transcriptionStatus !== 'completed') {
      throw new AppError('NOTE_NOT_COMPLETED', 'Only a completed note can be signed', { transcription_status: note.transcriptionStatus });
    }
    const openFlags = note.reviewFlags.length;
    if (openFlags > 0 && input.acknowledge_flags !== true) {
      throw new AppError(
        'REVIEW_FLAGS_OPEN',
        `This note has ${openFlags} open review flag(s); review them and sign with acknowledge_flags: true`,
        { flags: openFlags },
      );
    }
    // Whole seconds: the API shows them, and the hash covers the value the API shows.
    const signedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const signedBy = input.signed_by;
    const hash = contentSha256({ noteId, sections: await sectionsOf(noteId, tx), signedBy, signedAt: toTimestamp(signedAt) });
    const flagsAcknowledged = openFlags > 0;
    await insertSignature(
      {
        noteId,
        signedByName: signedBy.name,
        signedByLicense: signedBy.license,
        signedAt,
        keyId: caller.keyId,
        flagsAcknowledged,
        openFlags,
        contentSha256: hash,
      },
      tx,
    );
    await setRecordStatus(noteId, 'signed', tx);
    await recordNoteEvent(tx, noteId, 'signed', caller, {
      signed_by: signedBy,
      flags_acknowledged: flagsAcknowledged,
      open_flags: openFlags,
      content_sha256: hash,
    });
    await deps.events.signed(tx, noteId);
  });
  const { sections, signature, ...note } = ownNote(caller, await deps.noteWithSections(noteId));
  return toNoteBody(note, deps.publicBaseUrl, sections, signature);
}

/**
 * Corrects one section of a signed note: the section shows the new content (and the note the
 * vitals its new words say), and an append-only amendment keeps the text it replaced, the reason,
 * the signer and the next link of the hash chain.
 */
async function amend(deps: RecordDeps, caller: NotesCaller, noteId: string, input: AmendInput) {
  const amendment = await deps.db.transaction(async (tx) => {
    const note = ownNote(caller, await lockNoteRecord(noteId, tx));
    if (note.recordStatus === 'draft') {
      throw new AppError('NOTE_NOT_SIGNED', 'Only a signed note is amended; edit the sections of a draft with PATCH /note_sections');
    }
    const section = await lockSectionOfNote(input.section_id, noteId, tx);
    if (!section) throw new AppError('SECTION_NOT_FOUND', 'This note has no such section');
    const signature = await findSignature(noteId, tx);
    if (!signature) throw new Error(`signed note ${noteId} has no signature`);
    const last = await lastAmendment(noteId, tx);
    const { title, order, position, label } = section;
    await updateSection(section, { title, order, position, label, content: input.content }, tx);
    // Vitals whose words the amendment changed are read again from the new text, as a section edit
    // reads them (notes-vitals.md), before the note.amended event renders the note.
    await reextractEditedVitals({ noteId, clinicId: note.clinicId, before: section.content, after: input.content }, tx);
    // The plan too: after signing it is part of the signed content (notes-plan.md, "Editing").
    await reextractEditedPlan({ noteId, before: section.content, after: input.content }, tx);
    const hash = contentSha256({
      noteId,
      sections: await sectionsOf(noteId, tx),
      signedBy: { name: signature.signedByName, license: signature.signedByLicense },
      signedAt: toTimestamp(signature.signedAt),
    });
    const row = await insertAmendment(
      {
        noteId,
        position: (last?.position ?? 0) + 1,
        sectionId: section.id,
        label: section.label,
        previousContent: section.content,
        content: input.content,
        reason: input.reason,
        signedByName: input.signed_by.name,
        signedByLicense: input.signed_by.license,
        keyId: caller.keyId,
        contentSha256: hash,
        previousSha256: last?.contentSha256 ?? signature.contentSha256,
      },
      tx,
    );
    await setRecordStatus(noteId, 'amended', tx);
    await recordNoteEvent(tx, noteId, 'amended', caller, {
      amendment_id: row.id,
      section_id: row.sectionId,
      label: row.label,
      reason: row.reason,
      signed_by: input.signed_by,
      content_sha256: row.contentSha256,
      previous_sha256: row.previousSha256,
    });
    await deps.events.amended(tx, noteId, row);
    return row;
  });
  return toAmendmentBody(amendment);
}

/** A note's amendments, oldest first; none for an unsigned note. */
async function listAmendments(deps: RecordDeps, caller: NotesCaller, noteId: string) {
  ownNote(caller, await findNoteOwner(noteId, deps.db));
  return (await amendmentsOf(noteId, deps.db)).map(toAmendmentBody);
}

export function recordService(deps: Omit<RecordDeps, 'noteWithSections'>) {
  return bindService({ ...deps, noteWithSections: prepareNoteWithSections(deps.db) }, { sign, amend, listAmendments });
}

export type RecordService = ReturnType<typeof recordService>;
