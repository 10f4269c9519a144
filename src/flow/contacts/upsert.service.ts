import type { Db } from '../../platform/db/client.ts';
import type { AuditChanges } from '../../platform/db/schema/index.ts';
import { uniqueViolation } from '../../platform/db/unique-violation.ts';
import { AppError } from '../../platform/errors.ts';
import { insertAuditLog } from '../audit/audit.repo.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { findWorkspace } from '../workspaces/workspaces.repo.ts';
import type { ContactUpsert, UpsertWarning } from './contact.schemas.ts';
import { type ContactFields, changedFields, normalizeContactFields } from './contact-input.ts';
import { type ContactChanges, type ContactRow, findActiveHolder, findMatch, insertContact, updateContact } from './contacts.repo.ts';

/** Where an external write came from, for the audit trail. */
export interface RequestMeta {
  readonly requestId: string;
  readonly ip: string | undefined;
}

export interface UpsertResult {
  contact: ContactRow;
  action: 'created' | 'updated' | 'restored';
  matchedBy: 'external_id' | 'document' | 'phone' | null;
  warnings: UpsertWarning[];
}

const UNIQUE_INDEXES: Record<string, { code: 'DUPLICATE_PHONE' | 'DUPLICATE_EXTERNAL_ID'; field: 'phone' | 'externalId' }> = {
  contacts_workspace_phone_active_key: { code: 'DUPLICATE_PHONE', field: 'phone' },
  contacts_workspace_external_id_active_key: { code: 'DUPLICATE_EXTERNAL_ID', field: 'externalId' },
};

// A create that loses a race against a concurrent create of the same contact hits a unique index;
// the whole transaction is then run again and finds (and updates) the winner's row.
const MAX_ATTEMPTS = 4;

/** A write hit a unique index: `value` is the phone/external_id the row would have had. */
class UniqueConflict extends Error {
  readonly index: string;
  readonly value: string | null | undefined;
  /** True when no match existed: a concurrent upsert created the contact, so try again. */
  readonly retryable: boolean;
  constructor(index: string, value: string | null | undefined, retryable: boolean) {
    super(index);
    this.index = index;
    this.value = value;
    this.retryable = retryable;
  }
}

function asConflict(error: unknown, row: { phone?: string | null; externalId?: string | null }, retryable: boolean): unknown {
  const index = uniqueViolation(error);
  const known = index !== undefined ? UNIQUE_INDEXES[index] : undefined;
  return known ? new UniqueConflict(index!, row[known.field], retryable) : error;
}

/** PUT /external/.../contacts: match (external_id → document → phone, deleted included), then create, update or restore. */
export async function upsertContact(caller: ApiKeyCaller, input: ContactUpsert, meta: RequestMeta, db: Db): Promise<UpsertResult> {
  const fields = normalizeContactFields(input);
  const ids = { externalId: fields.externalId ?? undefined, document: fields.document ?? undefined, phone: fields.phone };
  if (ids.externalId === undefined && ids.document === undefined && ids.phone === undefined) {
    throw new AppError('MISSING_IDENTIFIER', 'Send at least one of external_id, document, phone to identify the contact', {
      field: 'external_id',
      reason: 'at least one of external_id, document, phone is required',
    });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction((tx) => upsertOnce(caller, fields, ids, meta, tx));
    } catch (error) {
      if (!(error instanceof UniqueConflict)) throw error;
      if (error.retryable && attempt < MAX_ATTEMPTS) continue;
      const known = UNIQUE_INDEXES[error.index]!;
      const holder = error.value ? await findActiveHolder(caller.workspaceId, known.field, error.value, db) : undefined;
      const label = known.field === 'phone' ? 'phone' : 'external_id';
      throw new AppError(known.code, `Another contact of this workspace already has this ${label}`, {
        field: label,
        conflicting_contact_id: holder ?? null,
      });
    }
  }
}

async function upsertOnce(
  caller: ApiKeyCaller,
  fields: ContactFields,
  ids: { externalId?: string; document?: string; phone?: string },
  meta: RequestMeta,
  tx: Db,
): Promise<UpsertResult> {
  const match = await findMatch(caller.workspaceId, ids, { includeDeleted: true, lock: true }, tx);
  if (!match) return create(caller, fields, meta, tx);

  const matchedBy =
    ids.externalId !== undefined && match.externalId === ids.externalId
      ? 'external_id'
      : ids.document !== undefined && match.document === ids.document
        ? 'document'
        : 'phone';
  const changes: ContactChanges = {};
  for (const key of changedFields(match as ContactFields, fields)) (changes as Record<string, unknown>)[key] = fields[key];

  const warnings: UpsertWarning[] = [];
  const userEdited = (changes.name !== undefined && match.nameEditedAt) || (changes.phone !== undefined && match.phoneEditedAt);
  if (userEdited) {
    const workspace = await findWorkspace(caller.workspaceId, tx);
    if (workspace?.contactSyncPolicy === 'erp') {
      // The ERP's value replaces the user's edit, so there is no edit left to protect.
      if (changes.name !== undefined) Object.assign(changes, { nameEditedAt: null, nameEditedBy: null });
      if (changes.phone !== undefined) Object.assign(changes, { phoneEditedAt: null, phoneEditedBy: null });
    } else {
      if (changes.name !== undefined && match.nameEditedAt) {
        delete changes.name;
        warnings.push('name_not_applied_user_edited_in_flow');
      }
      if (changes.phone !== undefined && match.phoneEditedAt) {
        delete changes.phone;
        warnings.push('phone_not_applied_user_edited_in_flow');
      }
    }
  }

  const restoring = match.deletedAt !== null;
  const audit: AuditChanges = {};
  for (const key of Object.keys(changes) as (keyof ContactFields)[]) {
    if (key in fields) audit[COLUMN[key]] = { before: match[key], after: changes[key] };
  }
  if (restoring) {
    changes.deletedAt = null;
    audit.deleted_at = { before: match.deletedAt!.toISOString(), after: null };
  }
  let contact = match;
  if (Object.keys(changes).length > 0) {
    try {
      contact = await updateContact(match.id, changes, tx);
    } catch (error) {
      throw asConflict(error, { phone: changes.phone ?? match.phone, externalId: changes.externalId ?? match.externalId }, false);
    }
  }
  const action = restoring ? 'restored' : 'updated';
  await insertAuditLog(auditEntry(caller, contact.id, action, audit, warnings, meta), tx);
  return { contact, action, matchedBy, warnings };
}

async function create(caller: ApiKeyCaller, fields: ContactFields, meta: RequestMeta, tx: Db): Promise<UpsertResult> {
  for (const field of ['name', 'phone'] as const) {
    if (!fields[field]) {
      throw new AppError('INVALID_REQUEST', `No contact matches; ${field} is required to create one`, {
        field,
        reason: 'required to create a contact',
      });
    }
  }
  let contact: ContactRow;
  try {
    contact = await insertContact({ ...fields, name: fields.name!, phone: fields.phone!, workspaceId: caller.workspaceId }, tx);
  } catch (error) {
    // Our match saw no holder of this phone/external_id, so a concurrent upsert created it: retry.
    throw asConflict(error, fields, true);
  }
  const audit: AuditChanges = {};
  for (const key of Object.keys(fields) as (keyof ContactFields)[]) {
    if (fields[key] != null) audit[COLUMN[key]] = { before: null, after: fields[key] };
  }
  await insertAuditLog(auditEntry(caller, contact.id, 'created', audit, [], meta), tx);
  return { contact, action: 'created', matchedBy: null, warnings: [] };
}

/** The audit row of one successful external write. */
export function auditEntry(
  caller: ApiKeyCaller,
  contactId: string,
  action: 'created' | 'updated' | 'restored' | 'deleted',
  changes: AuditChanges,
  warnings: string[],
  meta: RequestMeta,
) {
  return {
    workspaceId: caller.workspaceId,
    contactId,
    apiKeyId: caller.keyId,
    apiKeyPrefix: caller.prefix,
    action,
    changes,
    warnings,
    requestId: meta.requestId,
    ip: meta.ip ?? null,
  };
}

/** Audit entries name fields as the API does. */
const COLUMN: Record<keyof ContactFields, string> = {
  externalId: 'external_id',
  document: 'document',
  name: 'name',
  phone: 'phone',
  email: 'email',
  address: 'address',
  source: 'source',
  profilePicUrl: 'profile_pic_url',
};
