import { createHash } from 'node:crypto';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { Drafter, GroundingCheck } from '../../providers/drafting/port.ts';
import type { NotesCaller } from '../callers.ts';
import { findClinic } from '../clinics/clinics.repo.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { findNote, type NoteRow, sectionsOf } from '../store/notes.repo.ts';
import { ownNote } from '../store/own-note.ts';
import { lockNoteRecord } from '../store/record.repo.ts';
import { findSettings } from '../store/settings.repo.ts';
import { factsOf, groundingSourceOf } from './note-facts.ts';
import { plainRewrite } from './plain-rewrite.ts';
import { deliveriesOf, insertSummary, newestSummary, type SummaryRow, updateSummary } from './summary.repo.ts';
import type { SummaryBody, SummaryReviewFlag } from './summary.schemas.ts';
import { buildSummaryText } from './summary-text.ts';

export interface SummaryDeps {
  db: Db;
  /** The drafting server, for `style: "plain"`; null when none is configured. */
  drafter: Drafter | null;
  grounding: GroundingCheck;
}

/** The deterministic text of a note and what any text of its summary is grounded in. */
export async function summaryBasis(db: Db, note: NoteRow) {
  const [sections, clinic, settings] = await Promise.all([
    sectionsOf(note.id, db),
    findClinic(note.clinicId, db),
    findSettings(note.clinicId, db),
  ]);
  // The name the clinic prints on its record (settings `clinic_profile`), else its account's name.
  const clinicName = settings?.clinicProfile?.name ?? clinic?.name ?? '';
  const deterministic = buildSummaryText(factsOf(note, sections, clinicName));
  return { deterministic, source: groundingSourceOf(note, sections, deterministic) };
}

async function completedNote(deps: SummaryDeps, caller: NotesCaller, noteId: string): Promise<NoteRow> {
  const note = ownNote(caller, await findNote(noteId, deps.db));
  if (note.transcriptionStatus !== 'completed') {
    throw new AppError('NOTE_NOT_COMPLETED', 'A summary is made from a completed note', { status: note.transcriptionStatus });
  }
  return note;
}

/**
 * Writes the next version of the note's summary: the text built from the note, or with `plain`
 * the drafting server's rewrite when it states nothing the note does not (otherwise the built text,
 * flagged). The rewrite runs before the transaction: no lock waits on a remote server.
 */
async function createSummary(deps: SummaryDeps, caller: NotesCaller, noteId: string, input: { style: 'standard' | 'plain' }) {
  if (input.style === 'plain' && !deps.drafter?.rewrite) {
    throw new AppError('VALIDATION_ERROR', 'style "plain" needs a drafting server, and this server has none', {
      field: 'style',
      reason: 'no drafting server configured',
    });
  }
  const note = await completedNote(deps, caller, noteId);
  const basis = await summaryBasis(deps.db, note);
  let text = basis.deterministic;
  let flags: SummaryReviewFlag[] = [];
  if (input.style === 'plain' && deps.drafter) {
    const rewritten = await plainRewrite(deps.drafter, deps.grounding, basis);
    text = rewritten.text;
    flags = rewritten.flags;
  }
  return deps.db.transaction(async (tx) => {
    ownNote(caller, await lockNoteRecord(noteId, tx));
    const row = await insertSummary({ noteId, clinicId: caller.clinicId, text, style: input.style, reviewFlags: flags }, tx);
    await recordNoteEvent(tx, noteId, 'owner_summary_created', caller, { version: row.version, style: row.style });
    return toSummaryBody(row, []);
  });
}

async function summaryOf(db: Db, noteId: string): Promise<SummaryRow> {
  const row = await newestSummary(noteId, db);
  if (!row) throw new AppError('SUMMARY_NOT_FOUND', 'This note has no owner summary yet: POST /notes/{id}/owner_summary makes one');
  return row;
}

async function getSummary(deps: SummaryDeps, caller: NotesCaller, noteId: string): Promise<SummaryBody> {
  ownNote(caller, await findNote(noteId, deps.db));
  const row = await summaryOf(deps.db, noteId);
  return toSummaryBody(row, await deliveriesOf(row.id, deps.db));
}

/** The vet's own text for the newest version, refused when it states what the note does not. */
async function editSummary(deps: SummaryDeps, caller: NotesCaller, noteId: string, input: { text: string }): Promise<SummaryBody> {
  const note = await completedNote(deps, caller, noteId);
  const basis = await summaryBasis(deps.db, note);
  const tokens = deps.grounding(input.text, basis.source);
  if (tokens.length > 0) {
    throw new AppError('SUMMARY_NOT_GROUNDED', `The text states what the note does not: ${tokens.join(', ')}`, { field: 'text', tokens });
  }
  return deps.db.transaction(async (tx) => {
    ownNote(caller, await lockNoteRecord(noteId, tx));
    const current = await summaryOf(tx, noteId);
    if (current.status === 'approved') {
      throw new AppError('SUMMARY_APPROVED', 'An approved summary is not edited; POST a new version to change it');
    }
    const row = await updateSummary(current.id, { text: input.text }, tx);
    await recordNoteEvent(tx, noteId, 'owner_summary_edited', caller, { version: row.version });
    return toSummaryBody(row, await deliveriesOf(row.id, tx));
  });
}

/** Approval: the note signed, the text's SHA-256 kept with the summary and in the note's history. */
async function approveSummary(
  deps: SummaryDeps,
  caller: NotesCaller,
  noteId: string,
  input: { approved_by: { name: string; license: string } },
): Promise<SummaryBody> {
  return deps.db.transaction(async (tx) => {
    const note = ownNote(caller, await lockNoteRecord(noteId, tx));
    const current = await summaryOf(tx, noteId);
    if (note.recordStatus === 'draft') {
      throw new AppError('NOTE_NOT_SIGNED', 'A summary is approved once its note is signed (POST /notes/{id}/sign)');
    }
    if (current.status === 'approved') throw new AppError('SUMMARY_APPROVED', 'This summary version is already approved');
    const sha256 = contentSha256(current.text);
    const row = await updateSummary(
      current.id,
      { status: 'approved', contentSha256: sha256, approvedBy: input.approved_by, approvedAt: new Date() },
      tx,
    );
    await recordNoteEvent(tx, noteId, 'owner_summary_approved', caller, {
      version: row.version,
      content_sha256: sha256,
      approved_by: input.approved_by,
    });
    return toSummaryBody(row, await deliveriesOf(row.id, tx));
  });
}

/** Hex SHA-256 of the UTF-8 text: what proves later exactly which words the tutor received. */
export function contentSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function toSummaryBody(row: SummaryRow, deliveries: Awaited<ReturnType<typeof deliveriesOf>>): SummaryBody {
  return {
    id: row.id,
    note_id: row.noteId,
    version: row.version,
    text: row.text,
    characters: row.text.length,
    style: row.style,
    review_flags: row.reviewFlags as SummaryReviewFlag[],
    status: row.status,
    content_sha256: row.contentSha256,
    approved_by: row.approvedBy,
    approved_at: row.approvedAt ? toTimestamp(row.approvedAt) : null,
    deliveries: deliveries.map((delivery) => ({
      message_id: delivery.messageId,
      contact_id: delivery.contactId,
      status: delivery.status,
      sent_at: delivery.sentAt ? toTimestamp(delivery.sentAt) : null,
    })),
  };
}

export function summaryService(deps: SummaryDeps) {
  return bindService(deps, { create: createSummary, get: getSummary, edit: editSummary, approve: approveSummary });
}

export type SummaryService = ReturnType<typeof summaryService>;
