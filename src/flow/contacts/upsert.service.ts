import type { Db } from '../../platform/db/client.ts';
import type { AuditChanges } from '../../platform/db/schema/index.ts';
import { uniqueViolation } from '../../platform/db/unique-violation.ts';
import { AppError } from '../../platform/errors.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import { type AuditEntry, insertAuditLog } from '../audit/audit.repo.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { findWorkspace } from '../workspaces/workspaces.repo.ts';
import type { ContactUpsert, UpsertWarning } from './contact.schemas.ts';
import { type ContactFields, changedFields, normalizeContactFields } from './contact-input.ts';
import {
  type ContactChanges,
  type ContactRow,
  findActiveHolder,
  findMatch,
  prepareAuditedWrites,
  prepareUpsertMatch,
  type VersionedContact,
  writableRow,
} from './contacts.repo.ts';

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
// the upsert then runs again and finds (and updates) the winner's row.
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

/**
 * PUT /external/.../contacts: match (external_id → document → phone, deleted included), then create,
 * update or restore. Prepared once per database (the match is on the hot path).
 *
 * The first try is optimistic and needs no transaction: one prepared match, then one statement that
 * writes the contact and its audit entry together, the update only if the row is still the version
 * that was read. A try that loses a race (a concurrent create hit the unique index, or the row
 * changed in between) runs again inside a transaction that locks the matched row, where it cannot
 * lose to an update any more.
 */
export function contactUpserter(db: Db) {
  const optimisticMatch = prepareUpsertMatch(db);
  const writes = prepareAuditedWrites(db);

  return async function upsertContact(caller: ApiKeyCaller, input: ContactUpsert, meta: RequestMeta): Promise<UpsertResult> {
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
        const result =
          attempt === 1
            ? await upsertOnce(caller, fields, ids, meta, await optimisticMatch(caller.workspaceId, ids), writes, db)
            : await db.transaction(async (tx) => {
                const locked = await findMatch(caller.workspaceId, ids, { includeDeleted: true, lock: true }, tx);
                return upsertOnce(caller, fields, ids, meta, locked, writes, db, tx);
              });
        if (result) return result;
        // Only the optimistic try can lose an update race; a locked one always writes.
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
  };
}

type AuditedWrites = ReturnType<typeof prepareAuditedWrites>;

/**
 * One try against `match` (locked, or with the version it was read at). Undefined when the matched
 * row changed since it was read: nothing was written, try again.
 */
async function upsertOnce(
  caller: ApiKeyCaller,
  fields: ContactFields,
  ids: { externalId?: string; document?: string; phone?: string },
  meta: RequestMeta,
  match: ContactRow | VersionedContact | undefined,
  writes: AuditedWrites,
  db: Db,
  tx?: Db,
): Promise<UpsertResult | undefined> {
  if (!match) return create(caller, fields, meta, writes, tx);

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
    const workspace = await findWorkspace(caller.workspaceId, tx ?? db);
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
    audit.deleted_at = { before: toTimestamp(match.deletedAt!), after: null };
  }
  const action = restoring ? 'restored' : 'updated';
  const entry = auditEntry(caller, action, audit, warnings, meta);
  if (Object.keys(changes).length === 0) {
    // Nothing to write but the audit entry: the request still succeeded.
    await insertAuditLog({ ...entry, contactId: match.id }, tx ?? db);
    return { contact: withoutVersion(match), action, matchedBy, warnings };
  }
  let contact: ContactRow | undefined;
  try {
    const version = 'version' in match ? match.version : null;
    contact = await writes.update(match.id, version, writableRow(match, changes), entry, tx);
  } catch (error) {
    throw asConflict(error, { phone: changes.phone ?? match.phone, externalId: changes.externalId ?? match.externalId }, false);
  }
  return contact && { contact, action, matchedBy, warnings };
}

async function create(
  caller: ApiKeyCaller,
  fields: ContactFields,
  meta: RequestMeta,
  writes: AuditedWrites,
  tx: Db | undefined,
): Promise<UpsertResult> {
  for (const field of ['name', 'phone'] as const) {
    if (!fields[field]) {
      throw new AppError('INVALID_REQUEST', `No contact matches; ${field} is required to create one`, {
        field,
        reason: 'required to create a contact',
      });
    }
  }
  const audit: AuditChanges = {};
  for (const key of Object.keys(fields) as (keyof ContactFields)[]) {
    if (fields[key] != null) audit[COLUMN[key]] = { before: null, after: fields[key] };
  }
  const entry = auditEntry(caller, 'created', audit, [], meta);
  try {
    const contact = await writes.insert(caller.workspaceId, writableRow(fields), entry, tx);
    return { contact, action: 'created', matchedBy: null, warnings: [] };
  } catch (error) {
    // Our match saw no holder of this phone/external_id, so a concurrent upsert created it: retry.
    throw asConflict(error, fields, true);
  }
}

function withoutVersion(row: ContactRow | VersionedContact): ContactRow {
  if (!('version' in row)) return row;
  const { version: _, ...contact } = row;
  return contact;
}

/** The audit row of one successful external write, but its contact (the statement that writes the contact knows it). */
export function auditEntry(
  caller: ApiKeyCaller,
  action: 'created' | 'updated' | 'restored' | 'deleted',
  changes: AuditChanges,
  warnings: string[],
  meta: RequestMeta,
): AuditEntry {
  return {
    workspaceId: caller.workspaceId,
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
