import { and, desc, eq, ilike, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { contactPets, contacts } from '../../platform/db/schema/index.ts';

export type ContactRow = typeof contacts.$inferSelect;
export type NewContact = typeof contacts.$inferInsert;
export type ContactChanges = Partial<Omit<NewContact, 'id' | 'workspaceId' | 'createdAt'>>;
export type PetRow = typeof contactPets.$inferSelect;

export interface Identifiers {
  externalId?: string;
  document?: string;
  phone?: string;
}

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
  const rank = sql`case
    when ${contacts.externalId} is not distinct from ${ids.externalId ?? null} then 0
    when ${contacts.document} is not distinct from ${ids.document ?? null} then 1
    else 2 end`;
  const query = tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.workspaceId, workspaceId), or(...conditions), options.includeDeleted ? undefined : isNull(contacts.deletedAt)))
    .orderBy(rank, sql`${contacts.deletedAt} is not null`, desc(contacts.updatedAt))
    .limit(1);
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

export async function insertContact(values: NewContact, tx: Db): Promise<ContactRow> {
  const [row] = await tx.insert(contacts).values(values).returning();
  return row!;
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
