import { createHash } from 'node:crypto';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { JobDefinition, JobQueue } from '../../platform/jobs.ts';
import type { NotesCaller } from '../callers.ts';
import type { CrmLink, TutorRecipient } from '../crm-link.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { findNote } from '../store/notes.repo.ts';
import { ownNote } from '../store/own-note.ts';
import { findSettings } from '../store/settings.repo.ts';
import { type SecretBox, SecretUnreadableError } from '../webhooks/secrets.ts';
import { findDeliveryByMessage, insertDelivery, newestSummary } from './summary.repo.ts';

export interface SendSummaryDeps {
  db: Db;
  crmLink: CrmLink;
  /** Opens the clinic's sealed CRM token. */
  secrets: () => SecretBox;
  jobs: JobQueue;
  /** The job that follows the CRM message until it is sent or failed (delivery-watch.job.ts). */
  watch: JobDefinition<{ deliveryId: string; round: number }>;
}

export interface SendSummaryInput {
  contact?: TutorRecipient;
  idempotencyKey?: string;
}

export interface SentSummary {
  message_id: string;
  contact_id: string;
  chat_id: string;
  status: 'queued';
}

/**
 * Sends the newest, approved summary to the tutor through the clinic's CRM link, word for word,
 * as a `visit_summary` message (in the clinic's WhatsApp template when it set one). Refusals in
 * order: not approved (409), no link (409), no tutor (422). The CRM honours the Idempotency-Key
 * (scoped to this clinic and note), so a retried request queues nothing twice and records no
 * second delivery or history event.
 */
async function sendSummary(deps: SendSummaryDeps, caller: NotesCaller, noteId: string, input: SendSummaryInput): Promise<SentSummary> {
  const note = ownNote(caller, await findNote(noteId, deps.db));
  const summary = await newestSummary(noteId, deps.db);
  if (!summary) throw new AppError('SUMMARY_NOT_FOUND', 'This note has no owner summary yet: POST /notes/{id}/owner_summary makes one');
  if (summary.status !== 'approved') {
    throw new AppError('SUMMARY_NOT_APPROVED', 'Only an approved summary is sent: POST /notes/{id}/owner_summary/approve');
  }
  const settings = await findSettings(caller.clinicId, deps.db);
  const link = settings?.crmLink;
  if (!link) throw new AppError('CRM_NOT_LINKED', 'The clinic is not linked to a CRM workspace: PATCH /settings with crm_link');
  const recipient = recipientOf(input.contact, note.tutor);
  if (!recipient) {
    throw new AppError('TUTOR_REQUIRED', "No tutor to send to: give the note's tutor at upload or a contact in this request", {
      field: 'contact',
      reason: 'required: the note has no tutor',
    });
  }
  const token = openToken(deps, link.sealed_token, caller.clinicId);
  const message = await deps.crmLink.sendToTutor(
    token,
    recipient,
    { kind: 'visit_summary', body: summary.text, template: settings.ownerSummaryTemplate ?? null },
    input.idempotencyKey === undefined ? undefined : scopedKey(caller.clinicId, noteId, input.idempotencyKey),
    caller.request ?? { id: 'notes', ip: '' },
  );
  if (!message) {
    throw new AppError('CRM_NOT_LINKED', 'The CRM key the clinic linked was revoked: link the workspace again with a live key');
  }
  await deps.db.transaction(async (tx) => {
    const delivery = await insertDelivery(
      {
        summaryId: summary.id,
        noteId,
        clinicId: caller.clinicId,
        messageId: message.id,
        contactId: message.contactId,
        chatId: message.chatId,
      },
      tx,
    );
    // A replay finds its delivery recorded by the first request: nothing more to write.
    if (!delivery) return;
    await recordNoteEvent(tx, noteId, 'owner_summary_sent', caller, {
      version: summary.version,
      content_sha256: summary.contentSha256,
      message_id: message.id,
      contact_id: message.contactId,
    });
    await deps.jobs.send(deps.watch, { deliveryId: delivery.id, round: 0 }, { tx, startAfter: 1 });
  });
  const recorded = await findDeliveryByMessage(message.id, deps.db);
  return { message_id: message.id, contact_id: recorded?.contactId ?? message.contactId, chat_id: message.chatId, status: 'queued' };
}

/** The linked token; a link sealed under a key this server no longer has is as good as none. */
function openToken(deps: SendSummaryDeps, sealed: string, clinicId: string): string {
  try {
    return deps.secrets().open(sealed, clinicId);
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
    throw new AppError(
      'CRM_NOT_LINKED',
      "The stored CRM key cannot be decrypted with this server's WEBHOOK_SECRET_KEY: link the workspace again",
    );
  }
}

/** The send body's contact, else the note's tutor; null when neither names anyone. */
function recipientOf(
  contact: TutorRecipient | undefined,
  tutor: { name: string | null; phone: string | null; external_id: string | null } | null,
) {
  const chosen = contact ?? (tutor ? { name: tutor.name, phone: tutor.phone, externalId: tutor.external_id } : undefined);
  if (!chosen || (!chosen.externalId && !chosen.phone && !chosen.name)) return null;
  return chosen;
}

/** The CRM keeps idempotency keys per workspace, which several clinics may share: the key is made this clinic's and note's. */
function scopedKey(clinicId: string, noteId: string, key: string): string {
  return `notes-summary-${createHash('sha256').update(`${clinicId}\n${noteId}\n${key}`).digest('hex').slice(0, 48)}`;
}

export function sendSummaryService(deps: SendSummaryDeps) {
  return bindService(deps, { send: sendSummary });
}

export type SendSummaryService = ReturnType<typeof sendSummaryService>;
