import type { Db } from '../../platform/db/client.ts';
import { and, desc, eq, getTableColumns, ilike, isNull, or, type SQL, sql } from '../../platform/db/drizzle.ts';
import { escapeLike } from '../../platform/db/like.ts';
import { contactPets, contacts } from '../../platform/db/schema/index.ts';

export type ContactRow = typeof contacts.$inferSelect;
export type NewContact = typeof contacts.$inferInsert;
export type ContactChanges = Partial<Omit<NewContact, 'id' | 'workspaceId' | 'createdAt'>>;
export type PetRow = typeof contactPets.$inferSelect;

/** The upsert's fields after trimming and normalisation: undefined = absent (left alone), null = clear. */
export type ContactFields = Pick<
  ContactChanges,
  'externalId' | 'document' | 'name' | 'phone' | 'email' | 'address' | 'source' | 'profilePicUrl'
>;

export interface Identifiers {
  externalId?: string;
  document?: string;
  phone?: string;
}

/**
 * The contact an upsert or a survey trigger is about, by the contract's matching order
 * (external_id, then document, then phone; active before deleted; most recently updated), which
 * lives in one place: the database function `vetflow_match_contact` (upsert-contact.sql), also
 * what the upsert itself matches with before it locks the row. This read serves the survey trigger
 * and names the holder of a conflicting identifier.
 */
export async function findMatch(
  workspaceId: string,
  ids: Identifiers,
  options: { includeDeleted: boolean },
  tx: Db,
): Promise<ContactRow | undefined> {
  if (ids.externalId === undefined && ids.document === undefined && ids.phone === undefined) return undefined;
  const [row] = await tx.select(contactColumnsOf('m')).from(
    sql`vetflow_match_contact(${workspaceId}::uuid, ${ids.externalId ?? null}::text, ${ids.document ?? null}::text,
        ${ids.phone ?? null}::text, ${options.includeDeleted}) as m`,
  );
  return row;
}

/** Who made an external write, for its audit entry. */
export interface AuditSource {
  apiKeyId: string;
  apiKeyPrefix: string;
  requestId: string;
  ip: string | null;
}

export type UpsertMatch = 'external_id' | 'document' | 'phone' | null;

export type UpsertOutcome =
  | {
      contact: ContactRow;
      action: 'created' | 'updated' | 'restored';
      matchedBy: UpsertMatch;
      warnings: string[];
      missingField: null;
    }
  | { missingField: 'name' | 'phone' };

// The request's fields by their API names (the function's `p_sent`), in its parameter order.
const UPSERT_FIELDS = {
  externalId: 'external_id',
  document: 'document',
  name: 'name',
  phone: 'phone',
  email: 'email',
  address: 'address',
  source: 'source',
  profilePicUrl: 'profile_pic_url',
} as const satisfies Record<keyof ContactFields, string>;

/** The contacts columns of a row that is not the table's (`alias`), mapped (dates) as the table's are. */
function contactColumnsOf(alias: string) {
  const columns = Object.entries(getTableColumns(contacts)).map(([key, column]) => [
    key,
    sql`${sql.identifier(alias)}.${sql.identifier(column.name)}`.mapWith(column),
  ]);
  return Object.fromEntries(columns) as { [K in keyof ContactRow]: SQL<ContactRow[K]> };
}

/** The sent fields' API names (the functions' `p_sent`) and every field's value, null when absent. */
function upsertArguments(input: ContactFields) {
  const keys = Object.keys(UPSERT_FIELDS) as (keyof ContactFields)[];
  const values = Object.fromEntries(keys.map((key) => [UPSERT_FIELDS[key], input[key] ?? null]));
  return { sent: keys.filter((key) => input[key] !== undefined).map((key) => UPSERT_FIELDS[key]), values };
}

/** The outcome columns both upsert statements read from their function's result `u`, but the contact. */
const outcomeColumns = () => ({
  action: sql<'created' | 'updated' | 'restored'>`action`,
  matchedBy: sql<UpsertMatch>`matched_by`,
  warnings: sql<string[]>`warnings`,
  missingField: sql<'name' | 'phone' | null>`missing_field`,
});

function outcomeOf(
  row: ContactRow & {
    action: 'created' | 'updated' | 'restored';
    matchedBy: UpsertMatch;
    warnings: string[];
    missingField: 'name' | 'phone' | null;
  },
): UpsertOutcome {
  if (row.missingField) return { missingField: row.missingField };
  const { action, matchedBy, warnings, missingField: _, ...contact } = row;
  return { contact, action, matchedBy, warnings, missingField: null };
}

/**
 * The external upsert, one round trip: `vetflow_upsert_contact` (upsert-contact.sql) matches, creates,
 * updates or restores, applies the sync policy and writes the audit entry in one statement,
 * prepared once per database. A taken phone or external_id surfaces as a unique violation.
 */
export function prepareContactUpsert(db: Db) {
  const p = (name: string) => sql.placeholder(name);
  const statementOn = (runner: Db) =>
    runner
      .select({ ...contactColumnsOf('u'), ...outcomeColumns() })
      .from(
        sql`(select (u.contact).*, u.action, u.matched_by, u.warnings, u.missing_field from vetflow_upsert_contact(
        ${p('workspaceId')}::uuid, ${p('sent')}::text[], ${p('externalId')}::text, ${p('document')}::text, ${p('name')}::text,
        ${p('phone')}::text, ${p('email')}::text, ${p('address')}::text, ${p('source')}::text, ${p('profilePicUrl')}::text,
        ${p('apiKeyId')}::uuid, ${p('apiKeyPrefix')}::text, ${p('requestId')}::text, ${p('ip')}::text) u) as u`,
      )
      .prepare('contact_upsert');
  const statement = statementOn(db);
  /** `runner`: a transaction to run in (the statement is then bound to it), or the database. */
  return async (workspaceId: string, input: ContactFields, source: AuditSource, runner: Db = db): Promise<UpsertOutcome> => {
    const { sent, values } = upsertArguments(input);
    const [row] = await (runner === db ? statement : statementOn(runner)).execute({
      workspaceId,
      sent,
      externalId: values.external_id,
      document: values.document,
      name: values.name,
      phone: values.phone,
      email: values.email,
      address: values.address,
      source: values.source,
      profilePicUrl: values.profile_pic_url,
      ...source,
    });
    return outcomeOf(row!);
  };
}

/** A batch item's outcome: what its answer needs of the contact is its id. */
export type BatchItemOutcome =
  | { contactId: string; action: 'created' | 'updated' | 'restored'; matchedBy: UpsertMatch; warnings: string[]; missingField: null }
  | { missingField: 'name' | 'phone' };

/**
 * The batch upsert, one round trip and one transaction: `vetflow_upsert_contacts` (contact-sync.sql)
 * calls the single upsert's function once per item, in order. Answers each item's outcome by its
 * `item` number; a unique violation in any item raises (and writes nothing). Reads only the
 * contact's id of each item (the batch answers no contact): mapping the whole row cost the server
 * ~7 µs per item.
 */
export function prepareContactBatchUpsert(db: Db) {
  const p = (name: string) => sql.placeholder(name);
  const statementOn = (runner: Db) =>
    runner
      .select({ item: sql<number>`item`, contactId: sql<string | null>`contact_id`, ...outcomeColumns() })
      .from(
        sql`(select u.item, (u.contact).id as contact_id, u.action, u.matched_by, u.warnings, u.missing_field from vetflow_upsert_contacts(
        ${p('workspaceId')}::uuid, ${p('items')}::jsonb, ${p('apiKeyId')}::uuid, ${p('apiKeyPrefix')}::text,
        ${p('requestId')}::text, ${p('ip')}::text) u) as u`,
      )
      .prepare('contact_batch_upsert');
  const statement = statementOn(db);
  /** `runner`: a transaction to run in (the statement is then bound to it), or the database. */
  return async (
    workspaceId: string,
    items: { item: number; fields: ContactFields }[],
    source: AuditSource,
    runner: Db = db,
  ): Promise<Map<number, BatchItemOutcome>> => {
    const payload = items.map(({ item, fields }) => {
      const { sent, values } = upsertArguments(fields);
      // A text[] literal ("{external_id,name,phone}": API names need no quoting), which the function
      // casts in a plain expression; a JSON array would need a subquery per item.
      return { item, sent: `{${sent.join(',')}}`, ...values };
    });
    const rows = await (runner === db ? statement : statementOn(runner)).execute({
      workspaceId,
      items: JSON.stringify(payload),
      ...source,
    });
    return new Map(
      rows.map(({ item, contactId, missingField, ...row }) => [
        item,
        missingField ? { missingField } : { contactId: contactId!, ...row, missingField: null },
      ]),
    );
  };
}

/** Marks the changes the transaction writes as a CRM user's in the change feed (contact-sync.sql). */
export async function markChangesByCrmUser(tx: Db): Promise<void> {
  await tx.execute(sql`select set_config('vetflow.change_source', 'crm_user', true)`);
}

export async function updateContact(id: string, changes: ContactChanges, tx: Db): Promise<ContactRow> {
  const [row] = await tx
    .update(contacts)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(contacts.id, id))
    .returning();
  return row!;
}

/**
 * The workspace's contact: active only, or also soft-deleted ones (`includeDeleted`); an erased
 * contact (always deleted too) only with `includeErased` — for everything else it is gone.
 */
export async function findContact(
  workspaceId: string,
  id: string,
  options: { includeDeleted?: boolean; includeErased?: boolean; lock?: boolean | 'share' },
  tx: Db,
): Promise<ContactRow | undefined> {
  const query = tx
    .select()
    .from(contacts)
    .where(
      and(
        eq(contacts.id, id),
        eq(contacts.workspaceId, workspaceId),
        options.includeDeleted || options.includeErased ? undefined : isNull(contacts.deletedAt),
        options.includeErased ? undefined : isNull(contacts.erasedAt),
      ),
    );
  // `share`: the contact must stay as read (not erased, not deleted) until the transaction ends,
  // as when something is added to it; an erasure (which locks it for update) waits, or ran first
  // and the row is read again as it left it.
  const [row] = options.lock === 'share' ? await query.for('share') : options.lock ? await query.for('update') : await query;
  return row;
}

/** The active contact holding a phone or external_id: who a 409 conflicts with. */
export async function findActiveHolder(workspaceId: string, field: 'phone' | 'externalId', value: string, tx: Db) {
  const [row] = await tx
    .select({ id: contacts.id })
    .from(contacts)
    .where(and(eq(contacts.workspaceId, workspaceId), eq(contacts[field], value), isNull(contacts.deletedAt)));
  return row?.id;
}

export async function listContacts(
  workspaceId: string,
  options: { search?: string; limit: number; offset: number },
  tx: Db,
): Promise<{ rows: ContactRow[]; total: number }> {
  const pattern = options.search ? `%${escapeLike(options.search)}%` : undefined;
  const where = and(
    eq(contacts.workspaceId, workspaceId),
    isNull(contacts.deletedAt),
    pattern ? or(ilike(contacts.name, pattern), ilike(contacts.phone, pattern), ilike(contacts.document, pattern)) : undefined,
  );
  const rows = await tx.select().from(contacts).where(where).orderBy(desc(contacts.updatedAt)).limit(options.limit).offset(options.offset);
  const [count] = await tx.select({ total: sql<number>`count(*)::int` }).from(contacts).where(where);
  return { rows, total: count?.total ?? 0 };
}

export function listPets(contactId: string, tx: Db): Promise<PetRow[]> {
  return tx.select().from(contactPets).where(eq(contactPets.contactId, contactId)).orderBy(contactPets.createdAt);
}

export async function insertPet(values: typeof contactPets.$inferInsert, tx: Db): Promise<PetRow> {
  const [row] = await tx.insert(contactPets).values(values).returning();
  return row!;
}
