import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import type { Replayable } from '../../platform/db/idempotency.ts';
import { AppError } from '../../platform/errors.ts';
import type { RequestOrigin } from '../../platform/http/request-origin.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { phoneOrThrow } from '../contacts/contact-input.ts';
import { findMatch } from '../contacts/contacts.repo.ts';
import type { ContactUpserter } from '../contacts/upsert.service.ts';
import { crmKeyCache } from '../keys/key-cache.ts';
import { callerOfKey } from '../keys/key-caller.ts';
import type { CrmScope } from '../keys/scopes.ts';
import { hashToken, isWellFormedToken } from '../keys/token.ts';
import type { QueuedMessageBody, SendMessage } from './message.schemas.ts';
import { findMessageStatus } from './messages.repo.ts';
import type { MessagesService } from './messages.service.ts';

// What another part of the deployment (the Notes API, for a clinic linked to a CRM workspace) may do
// with a CRM key it holds: learn whose key it is, and send a message to a tutor through it, exactly
// as an ERP holding that key would (the same scope check, the same contact rules, the same queue).

/** A valid, unrevoked CRM key: whose it is and what it may do. */
export interface LinkedKey {
  keyId: string;
  keyName: string;
  /** The token's first characters, safe to show. */
  prefix: string;
  scopes: readonly CrmScope[];
  workspaceId: string;
  workspaceName: string;
  billingStatus: ApiKeyCaller['billingStatus'];
}

/** Whom to send to: a contact of the key's workspace by id, or found by external id, then phone (created when missing). */
export type Recipient = { contactId: string } | { externalId?: string | null; phone?: string | null; name?: string | null };

export interface CrmLinkDeps {
  db: Db;
  upserter: ContactUpserter;
  messages: MessagesService;
}

/** The key behind a token; null when it is malformed, unknown or revoked. */
async function describeKey(deps: CrmLinkDeps, token: string): Promise<LinkedKey | null> {
  if (!isWellFormedToken(token)) return null;
  const key = await crmKeyCache(deps.db).find(hashToken(token));
  if (!key) return null;
  const { kind: _kind, ...linked } = callerOfKey(key);
  return linked;
}

/**
 * Sends `message` through the key's workspace, as `POST /external/contacts/{id}/messages` would:
 * the key must hold `messages:send` and its workspace be active; the contact is the one named by
 * id, else the active contact matching the external id, then the phone, else one created (an
 * upsert, under the workspace's sync policy) — which needs a name and a phone: without them 422
 * `TUTOR_REQUIRED`.
 */
async function sendToTutor(
  deps: CrmLinkDeps,
  key: LinkedKey,
  recipient: Recipient,
  message: SendMessage,
  idempotencyKey: string | undefined,
  origin: RequestOrigin,
): Promise<Replayable<QueuedMessageBody>> {
  if (!key.scopes.includes('messages:send')) {
    throw new AppError('INSUFFICIENT_SCOPE', 'The linked CRM key lacks the messages:send scope', {
      required_scope: 'messages:send',
      granted_scopes: key.scopes,
    });
  }
  if (key.billingStatus !== 'active') {
    throw new AppError('BILLING_INACTIVE', 'The billing of the linked CRM workspace is suspended', { billing_status: key.billingStatus });
  }
  // The request that asked for it (the Notes API's) is the one the contact's audit trail names.
  const caller: ApiKeyCaller = { kind: 'api_key', ...key, request: origin };
  const contactId = 'contactId' in recipient ? recipient.contactId : await contactOf(deps, caller, recipient);
  return deps.messages.sendMessage(caller, contactId, message, idempotencyKey);
}

async function contactOf(
  deps: CrmLinkDeps,
  caller: ApiKeyCaller,
  recipient: { externalId?: string | null; phone?: string | null; name?: string | null },
): Promise<string> {
  const externalId = recipient.externalId?.trim() || undefined;
  const phone = recipient.phone?.trim() ? phoneOrThrow(recipient.phone, 'contact.phone') : undefined;
  const found = await findMatch(caller.workspaceId, { externalId, phone }, { includeDeleted: false }, deps.db);
  if (found) return found.id;
  const name = recipient.name?.trim();
  if (!name || !phone) {
    throw new AppError('TUTOR_REQUIRED', 'No CRM contact matches the tutor; a name and a phone are needed to create one', {
      field: name ? 'contact.phone' : 'contact.name',
      reason: 'required to create the contact',
    });
  }
  const { contact } = await deps.upserter.upsertContact(caller, { name, phone, ...(externalId ? { external_id: externalId } : {}) });
  return contact.id;
}

/** How a message the link queued is doing: `queued`, `sent` (and when) or `failed`; undefined when gone. */
async function messageStatus(deps: CrmLinkDeps, messageId: string) {
  return findMessageStatus(messageId, deps.db);
}

/** The CRM side of a clinic's link to a workspace, bound once. */
export function crmLinkService(deps: CrmLinkDeps) {
  return bindService(deps, { describeKey, sendToTutor, messageStatus });
}

export type CrmLinkService = ReturnType<typeof crmLinkService>;
