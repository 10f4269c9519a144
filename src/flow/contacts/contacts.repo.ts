import { and, desc, eq, getTableColumns, ilike, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { contactPets, contacts } from '../../platform/db/schema/index.ts';
import { type AuditEntry, auditOf, auditParams } from '../audit/audit.repo.ts';

export type ContactRow = typeof contacts.$inferSelect;
export type NewContact = typeof contacts.$inferInsert;
export type ContactChanges = Partial<Omit<NewContact, 'id' | 'workspaceId' | 'createdAt'>>;
export type PetRow = typeof contactPets.$inferSelect;

export interface Identifiers {
  externalId?: string;
  document?: string;
  phone?: string;
}

// `=`, not `is not distinct from`: an identifier the request did not send (null) must not rank a
// row whose column is null as a match on it.
const matchRank = (externalId: SQL, document: SQL) => sql`case
    when ${contacts.externalId} = ${externalId} then 0
    when ${contacts.document} = ${document} then 1
    else 2 end`;

/**
 * The contact an upsert or a survey trigger is about, in one indexed query: a match by external_id
 * beats one by document, which beats one by phone; within a rank an active contact beats a deleted
 * one, then the most recently updated. Locked, so concurrent upserts of one contact queue up.
 */
export async function findMatch(
  workspaceId: string,
  ids: Identifiers,
  options: { includeDeleted: boolean; lock: boolean },
  tx: Db,
): Promise<ContactRow | undefined> {
  const conditions: SQL[] = [];
  if (ids.externalId !== undefined) conditions.push(eq(contacts.externalId, ids.externalId));
  if (ids.document !== undefined) conditions.push(eq(contacts.document, ids.document));
  if (ids.phone !== undefined) conditions.push(eq(contacts.phone, ids.phone));
  if (conditions.length === 0) return undefined;
  const rank = matchRank(sql`${ids.externalId ?? null}`, sql`${ids.document ?? null}`);
  const query = tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.workspaceId, workspaceId), or(...conditions), options.includeDeleted ? undefined : isNull(contacts.deletedAt)))
    .orderBy(rank, sql`${contacts.deletedAt} is not null`, desc(contacts.updatedAt))
    .limit(1);
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

/** A matched contact and its row version (`xmin`), for a write that must not overwrite a newer one. */
export type VersionedContact = ContactRow & { version: string };

/**
 * findMatch for the upsert's optimistic first try, prepared once per database: no lock, deleted
 * contacts included, and the row version to write against. Identifiers not sent are null, which
 * `=` never matches.
 */
export function prepareUpsertMatch(db: Db) {
  const workspaceId = sql.placeholder('workspaceId');
  const externalId = sql.placeholder('externalId');
  const document = sql.placeholder('document');
  const phone = sql.placeholder('phone');
  const statement = db
    .select({ ...getTableColumns(contacts), version: sql<string>`${contacts}.xmin::text`.as('version') })
    .from(contacts)
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        or(eq(contacts.externalId, externalId), eq(contacts.document, document), eq(contacts.phone, phone)),
      ),
    )
    .orderBy(matchRank(sql`${externalId}`, sql`${document}`), sql`${contacts.deletedAt} is not null`, desc(contacts.updatedAt))
    .limit(1)
    .prepare('contact_upsert_match');
  return async (workspaceId: string, ids: Identifiers): Promise<VersionedContact | undefined> => {
    const [row] = await statement.execute({
      workspaceId,
      externalId: ids.externalId ?? null,
      document: ids.document ?? null,
      phone: ids.phone ?? null,
    });
    return row;
  };
}

/** Every column an external write sets: the whole row, so one prepared statement fits every write. */
const WRITABLE = [
  'externalId',
  'document',
  'name',
  'phone',
  'email',
  'address',
  'source',
  'profilePicUrl',
  'nameEditedAt',
  'nameEditedBy',
  'phoneEditedAt',
  'phoneEditedBy',
  'deletedAt',
] as const satisfies readonly (keyof NewContact)[];
export type WritableContact = Required<Pick<NewContact, (typeof WRITABLE)[number]>>;
const placeholders = Object.fromEntries(WRITABLE.map((column) => [column, sql`${sql.placeholder(column)}`])) as Record<
  keyof WritableContact,
  SQL
>;

function buildInsertAudited(db: Db) {
  const written = db.$with('written').as(
    db
      .insert(contacts)
      .values({ ...placeholders, workspaceId: sql`${sql.placeholder('workspaceId')}` })
      .returning(),
  );
  return db.with(written, auditOf(written)).select().from(written);
}

// The update applies only while the row is at `version` (its xmin when read), unless the version is
// null because the caller holds the row lock.
function buildUpdateAudited(db: Db) {
  const version = sql.placeholder('version');
  const written = db.$with('written').as(
    db
      .update(contacts)
      .set({ ...placeholders, updatedAt: sql`now()` })
      .where(and(eq(contacts.id, sql.placeholder('id')), sql`(${version}::xid is null or ${contacts}.xmin = ${version}::xid)`))
      .returning(),
  );
  return db.with(written, auditOf(written)).select().from(written);
}

/**
 * The external API's contact writes, each one statement that also writes the audit entry (one
 * round trip, atomic without a transaction), prepared once per database. Inside a transaction
 * (`tx`) the same statements run on the transaction's connection.
 */
export function prepareAuditedWrites(db: Db) {
  const insert = buildInsertAudited(db).prepare('contact_insert_audited');
  const update = buildUpdateAudited(db).prepare('contact_update_audited');
  return {
    async insert(workspaceId: string, row: WritableContact, audit: AuditEntry, tx?: Db): Promise<ContactRow> {
      const params = { ...row, workspaceId, ...auditParams(audit) };
      const statement = tx ? buildInsertAudited(tx).prepare('contact_insert_audited') : insert;
      const [written] = await statement.execute(params);
      return written!;
    },
    /** Undefined when the row is no longer at `version`: nothing was written. */
    async update(id: string, version: string | null, row: WritableContact, audit: AuditEntry, tx?: Db): Promise<ContactRow | undefined> {
      const params = { ...row, id, version, ...auditParams(audit) };
      const statement = tx ? buildUpdateAudited(tx).prepare('contact_update_audited') : update;
      const [written] = await statement.execute(params);
      return written;
    },
  };
}

/** The writable columns of a row, `changes` applied. */
export function writableRow(row: Partial<WritableContact>, changes: ContactChanges = {}): WritableContact {
  const merged = { ...row, ...changes } as Record<string, unknown>;
  return Object.fromEntries(WRITABLE.map((column) => [column, merged[column] ?? null])) as WritableContact;
}

export async function updateContact(id: string, changes: ContactChanges, tx: Db): Promise<ContactRow> {
  const [row] = await tx
    .update(contacts)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(contacts.id, id))
    .returning();
  return row!;
}

export async function findContact(
  workspaceId: string,
  id: string,
  options: { includeDeleted?: boolean; lock?: boolean },
  tx: Db,
): Promise<ContactRow | undefined> {
  const query = tx
    .select()
    .from(contacts)
    .where(
      and(eq(contacts.id, id), eq(contacts.workspaceId, workspaceId), options.includeDeleted ? undefined : isNull(contacts.deletedAt)),
    );
  const [row] = options.lock ? await query.for('update') : await query;
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
  const pattern = options.search ? `%${options.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
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
