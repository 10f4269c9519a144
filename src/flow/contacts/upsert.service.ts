import { createHash } from 'node:crypto';
import type { Db } from '../../platform/db/client.ts';
import { idempotency } from '../../platform/db/idempotency.ts';
import { deadlockVictim, sqlStateOf, uniqueViolation } from '../../platform/db/unique-violation.ts';
import { AppError, type ErrorCode } from '../../platform/errors.ts';
import { itemBudget } from '../../platform/rate-limit.ts';
import type { ApiKeyCaller } from '../callers.ts';
import { auditSourceOf } from './audit-source.ts';
import type { ContactUpsert, UpsertWarning } from './contact.schemas.ts';
import { normalizeContactFields, parseContactUpsert } from './contact-input.ts';
import {
  type BatchItemOutcome,
  type ContactFields,
  type ContactRow,
  findActiveHolder,
  findMatch,
  type Identifiers,
  prepareContactBatchUpsert,
  prepareContactUpsert,
  type UpsertOutcome,
} from './contacts.repo.ts';

export interface UpsertResult {
  contact: ContactRow;
  action: 'created' | 'updated' | 'restored';
  matchedBy: 'external_id' | 'document' | 'phone' | null;
  warnings: UpsertWarning[];
}

/**
 * One item's outcome in a batch: what the single PUT would have answered, by its request index.
 * Plain JSON (it is stored with an Idempotency-Key and replayed); the route writes the wire form.
 */
export type BatchItemResult =
  | {
      index: number;
      status: 200 | 201;
      contactId: string;
      action: UpsertResult['action'];
      matchedBy: UpsertResult['matchedBy'];
      warnings: UpsertWarning[];
    }
  | {
      index: number;
      status: number;
      /** The error the single PUT would have raised, and the request that raised it in the batch. */
      error: { code: ErrorCode; message: string; details: Record<string, unknown> | undefined; requestId: string };
    };

export interface BatchResponse {
  statusCode: number;
  body: { results: BatchItemResult[] };
  /** The item budget's headers (none on a replay, which spends no items). */
  headers: Record<string, string>;
  replayed: boolean;
}

/** A batch: its raw items (each parsed as a PUT body) and the Idempotency-Key it was sent with, if any. */
export interface BatchUpsert {
  items: unknown[];
  idempotencyKey: string | undefined;
}

export interface UpserterDeps {
  db: Db;
  /** The per-key item budget of batch upserts (CRM_BATCH_ITEMS_PER_MINUTE). */
  batchItemsPerMinute: number;
}

const UNIQUE_INDEXES: Record<string, { code: 'DUPLICATE_PHONE' | 'DUPLICATE_EXTERNAL_ID'; field: 'phone' | 'externalId' }> = {
  contacts_workspace_phone_active_key: { code: 'DUPLICATE_PHONE', field: 'phone' },
  contacts_workspace_external_id_active_key: { code: 'DUPLICATE_EXTERNAL_ID', field: 'externalId' },
};

/** Raised by vetflow_upsert_contact when the workspace refuses re-keying a contact (upsert-contact.sql). */
const REKEYING_REFUSED = 'VF409';

/** A write the database refused for a rule, not a fault: a taken identifier, or a refused re-keying. */
const refusedWrite = (error: unknown) => uniqueViolation(error) !== undefined || sqlStateOf(error) === REKEYING_REFUSED;

const BATCH_SCOPE = 'POST /flow/v1/external/workspaces/{workspace_id}/contacts/batch';

/**
 * The external upserts. PUT /external/.../contacts: match (external_id → document → phone, deleted
 * included), then create, update or restore, with the sync policy and the audit entry: validation
 * and normalisation here, the rest in one database round trip (`prepareContactUpsert`, which also
 * settles races between concurrent upserts of one contact). POST /external/.../contacts/batch: the
 * same per item. Prepared once per database: this is the hot path.
 */
export function contactUpserter({ db, batchItemsPerMinute }: UpserterDeps) {
  const upsert = prepareContactUpsert(db);
  const upsertMany = prepareContactBatchUpsert(db);
  const takeItems = itemBudget(db);
  const idempotent = idempotency(db);

  async function upsertContact(caller: ApiKeyCaller, input: ContactUpsert): Promise<UpsertResult> {
    const { fields, ids } = upsertFieldsOf(input);
    const source = auditSourceOf(caller);
    for (let attempt = 1; ; attempt++) {
      try {
        return resultOf(await upsert(caller.workspaceId, fields, source));
      } catch (error) {
        // A batch writing the same contacts may pick this upsert as a deadlock's victim (it
        // locked its match, then waited on a phone the batch inserted): it wrote nothing, run it again.
        if (deadlockVictim(error) && attempt < 3) continue;
        throw await asConflict(error, caller.workspaceId, fields, ids, db);
      }
    }
  }

  /** One batch item on its own, inside the batch's transaction: a savepoint, so a 409 spoils nothing else. */
  async function upsertItem(caller: ApiKeyCaller, input: ContactUpsert, tx: Db): Promise<UpsertResult> {
    const { fields, ids } = upsertFieldsOf(input);
    try {
      return resultOf(await tx.transaction((item) => upsert(caller.workspaceId, fields, auditSourceOf(caller), item)));
    } catch (error) {
      throw await asConflict(error, caller.workspaceId, fields, ids, tx);
    }
  }

  /**
   * The batch: every item is parsed, validated and upserted exactly as a PUT body, in request
   * order, and answered as the PUT would have been, in the transaction `tx` (which also records an
   * Idempotency-Key's answer). The valid items go to the database in one call (one round trip);
   * if any of them hits a unique index (409), that call's savepoint is rolled back and the items
   * run again one by one, each in its own savepoint, so that only the offending item fails.
   */
  async function upsertContacts(caller: ApiKeyCaller, items: unknown[], tx: Db): Promise<BatchItemResult[]> {
    const source = auditSourceOf(caller);
    const results: BatchItemResult[] = new Array(items.length);
    const failed = (index: number, error: unknown): BatchItemResult => {
      if (!(error instanceof AppError)) throw error;
      const { code, message, details } = error;
      return { index, status: error.statusCode, error: { code, message, details, requestId: source.requestId } };
    };
    const valid: { item: number; input: ContactUpsert; fields: ContactFields }[] = [];
    items.forEach((raw, index) => {
      try {
        const input = parseContactUpsert(raw);
        valid.push({ item: index, input, fields: upsertFieldsOf(input).fields });
      } catch (error) {
        results[index] = failed(index, error);
      }
    });
    const succeeded = (index: number, result: Omit<UpsertResult, 'contact'> & { contactId: string }): BatchItemResult => ({
      index,
      status: result.action === 'updated' ? 200 : 201,
      contactId: result.contactId,
      action: result.action,
      matchedBy: result.matchedBy,
      warnings: result.warnings,
    });
    let outcomes: Map<number, BatchItemOutcome> | undefined;
    try {
      outcomes = valid.length > 0 ? await tx.transaction((all) => upsertMany(caller.workspaceId, valid, source, all)) : new Map();
    } catch (error) {
      if (!refusedWrite(error)) throw error;
    }
    for (const { item, input } of valid) {
      try {
        if (outcomes) {
          const outcome = outcomes.get(item)!;
          if (outcome.missingField) throw missingFieldError(outcome.missingField);
          results[item] = succeeded(item, { ...outcome, warnings: outcome.warnings as UpsertWarning[] });
        } else {
          const result = await upsertItem(caller, input, tx);
          results[item] = succeeded(item, { ...result, contactId: result.contact.id });
        }
      } catch (error) {
        results[item] = failed(item, error);
      }
    }
    return results;
  }

  /**
   * The batch route's operation, through `idempotent` (with the request's Idempotency-Key, if any):
   * a replay spends no items; otherwise the item budget, then `upsertContacts` in the transaction
   * that records the answer. A deadlock with another batch (shared contacts locked in opposite
   * orders) makes this one the victim: it wrote nothing, and runs once more.
   */
  async function batchUpsert(caller: ApiKeyCaller, { items, idempotencyKey }: BatchUpsert): Promise<BatchResponse> {
    const fingerprint = createHash('sha256').update(JSON.stringify(items)).digest('hex');
    const request = {
      owner: caller.workspaceId,
      scope: BATCH_SCOPE,
      key: idempotencyKey,
      fingerprint,
      reusedFor: 'a different batch',
    };
    let headers: Record<string, string> = {};
    const takeBudget = async () => {
      headers = await takeItems(`crm-items:${caller.keyId}`, items.length, batchItemsPerMinute);
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await idempotent<BatchResponse['body']>(
          request,
          async (tx) => ({ statusCode: 200, body: { results: await upsertContacts(caller, items, tx) } }),
          { before: attempt === 1 ? takeBudget : undefined },
        );
        return { ...answer, headers: answer.replayed ? {} : headers };
      } catch (error) {
        if (deadlockVictim(error) && attempt < 3) continue;
        throw error;
      }
    }
  }

  return { upsertContact, batchUpsert };
}

/** The fields to write and the identifiers to match by; no identifier at all → 400. */
function upsertFieldsOf(input: ContactUpsert): { fields: ContactFields; ids: Identifiers } {
  const fields = normalizeContactFields(input);
  const ids = { externalId: fields.externalId ?? undefined, document: fields.document ?? undefined, phone: fields.phone };
  if (ids.externalId === undefined && ids.document === undefined && ids.phone === undefined) {
    throw new AppError('MISSING_IDENTIFIER', 'Send at least one of external_id, document, phone to identify the contact', {
      field: 'external_id',
      reason: 'at least one of external_id, document, phone is required',
    });
  }
  return { fields, ids };
}

/** Nothing matched and a field needed to create is missing → 400. */
function missingFieldError(field: 'name' | 'phone'): AppError {
  return new AppError('INVALID_REQUEST', `No contact matches; ${field} is required to create one`, {
    field,
    reason: 'required to create a contact',
  });
}

/** The function's outcome as the API's result. */
function resultOf(outcome: UpsertOutcome): UpsertResult {
  if (outcome.missingField) throw missingFieldError(outcome.missingField);
  return {
    contact: outcome.contact,
    action: outcome.action,
    matchedBy: outcome.matchedBy,
    warnings: outcome.warnings as UpsertWarning[],
  };
}

/**
 * A write that hit a unique index: another active contact holds the phone or external_id the
 * matched contact would have had (the request's, or its own when restored) → 409 naming it.
 * Races between upserts never get here: the function retries those itself. A re-keying the
 * workspace refuses (`external_id_rekeying: refuse`) → 409 EXTERNAL_ID_CONFLICT naming the contact
 * the request matched by document or phone.
 */
async function asConflict(error: unknown, workspaceId: string, fields: ContactFields, ids: Identifiers, db: Db): Promise<unknown> {
  if (sqlStateOf(error) === REKEYING_REFUSED) {
    const { externalId: _new, ...others } = ids;
    const matched = await findMatch(workspaceId, others, { includeDeleted: true }, db);
    return new AppError(
      'EXTERNAL_ID_CONFLICT',
      'The contact this document or phone matches has another external_id, and this workspace refuses replacing it',
      { field: 'external_id', conflicting_contact_id: matched?.id ?? null },
    );
  }
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

export type ContactUpserter = ReturnType<typeof contactUpserter>;
