import type { Db } from '../../platform/db/client.ts';
import { uniqueViolation } from '../../platform/db/unique-violation.ts';
import { AppError } from '../../platform/errors.ts';
import type { ApiKeyCaller } from '../callers.ts';
import type { ContactUpsert, UpsertWarning } from './contact.schemas.ts';
import { normalizeContactFields } from './contact-input.ts';
import {
  type ContactFields,
  type ContactRow,
  findActiveHolder,
  findMatch,
  type Identifiers,
  prepareContactUpsert,
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

/**
 * PUT /external/.../contacts: match (external_id → document → phone, deleted included), then create,
 * update or restore, with the sync policy and the audit entry: validation and normalisation here,
 * the rest in one database round trip (`prepareContactUpsert`, which also settles races between
 * concurrent upserts of one contact). Prepared once per database: this is the hot path.
 */
export function contactUpserter(db: Db) {
  const upsert = prepareContactUpsert(db);

  return async function upsertContact(caller: ApiKeyCaller, input: ContactUpsert, meta: RequestMeta): Promise<UpsertResult> {
    const fields = normalizeContactFields(input);
    const ids = { externalId: fields.externalId ?? undefined, document: fields.document ?? undefined, phone: fields.phone };
    if (ids.externalId === undefined && ids.document === undefined && ids.phone === undefined) {
      throw new AppError('MISSING_IDENTIFIER', 'Send at least one of external_id, document, phone to identify the contact', {
        field: 'external_id',
        reason: 'at least one of external_id, document, phone is required',
      });
    }
    let outcome: Awaited<ReturnType<typeof upsert>>;
    try {
      outcome = await upsert(caller.workspaceId, fields, {
        apiKeyId: caller.keyId,
        apiKeyPrefix: caller.prefix,
        requestId: meta.requestId,
        ip: meta.ip ?? null,
      });
    } catch (error) {
      throw await asConflict(error, caller.workspaceId, fields, ids, db);
    }
    if (outcome.missingField) {
      const field = outcome.missingField;
      throw new AppError('INVALID_REQUEST', `No contact matches; ${field} is required to create one`, {
        field,
        reason: 'required to create a contact',
      });
    }
    return {
      contact: outcome.contact,
      action: outcome.action,
      matchedBy: outcome.matchedBy,
      warnings: outcome.warnings as UpsertWarning[],
    };
  };
}

/**
 * A write that hit a unique index: another active contact holds the phone or external_id the
 * matched contact would have had (the request's, or its own when restored) → 409 naming it.
 * Races between upserts never get here: the function retries those itself.
 */
async function asConflict(error: unknown, workspaceId: string, fields: ContactFields, ids: Identifiers, db: Db): Promise<unknown> {
  const index = uniqueViolation(error);
  const known = index !== undefined ? UNIQUE_INDEXES[index] : undefined;
  if (!known) return error;
  let value = fields[known.field];
  if (value == null) value = (await findMatch(workspaceId, ids, { includeDeleted: true }, db))?.[known.field];
  const holder = value ? await findActiveHolder(workspaceId, known.field, value, db) : undefined;
  const label = known.field === 'phone' ? 'phone' : 'external_id';
  return new AppError(known.code, `Another contact of this workspace already has this ${label}`, {
    field: label,
    conflicting_contact_id: holder ?? null,
  });
}
