// What the Notes tree needs of the CRM to send an owner summary, as a port: the composition root
// (app.ts) hands it the CRM tree's implementation, so neither tree imports the other.

import type { RequestOrigin } from '../platform/http/request-origin.ts';

/** A valid, unrevoked CRM key: whose it is and what it may do. */
export interface CrmKeyInfo {
  keyId: string;
  prefix: string;
  scopes: readonly string[];
  workspaceId: string;
  workspaceName: string;
}

/** Whom to send to, found in the key's workspace by external id, then phone; created with a name and a phone. */
export interface TutorRecipient {
  externalId?: string | null;
  phone?: string | null;
  name?: string | null;
}

export interface TutorMessage {
  kind: 'visit_summary';
  body: string;
  template: { name: string; language: string } | null;
}

/** The message the CRM queued: `replayed` when an earlier request with the same idempotency key queued it. */
export interface QueuedTutorMessage {
  id: string;
  contactId: string;
  chatId: string;
  replayed: boolean;
}

export interface CrmLink {
  /** The key behind a token; null when it is malformed, unknown or revoked. */
  describeKey(token: string): Promise<CrmKeyInfo | null>;
  /** Queues `message` to the tutor's chat in the key's workspace (AppError TUTOR_REQUIRED when no contact can be found or made). */
  sendToTutor(
    token: string,
    recipient: TutorRecipient,
    message: TutorMessage,
    idempotencyKey: string | undefined,
    origin: RequestOrigin,
  ): Promise<QueuedTutorMessage | null>;
  /** The delivery state of a message the link queued; undefined when it is gone (its contact erased). */
  messageStatus(messageId: string): Promise<{ status: 'queued' | 'sent' | 'failed'; sentAt: Date | null } | undefined>;
}

/** The scope a CRM key needs to be linked. */
export const CRM_SEND_SCOPE = 'messages:send';
