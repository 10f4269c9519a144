import type { Db } from '../../platform/db/client.ts';
import { and, count, desc, eq, gt, isNull, or, sql } from '../../platform/db/drizzle.ts';
import { notesApiKeys } from '../../platform/db/schema/index.ts';
import type { Permission, Role } from '../callers.ts';

export type NotesApiKeyRow = typeof notesApiKeys.$inferSelect;

export interface NewNotesApiKey {
  clinicId: string;
  name: string;
  role: Role;
  permissions: Permission[];
  keyHash: string;
  prefix: string;
  expiresAt: Date | null;
  createdByKeyId: string | null;
}

export async function insertKey(key: NewNotesApiKey, db: Db): Promise<NotesApiKeyRow> {
  const [row] = await db.insert(notesApiKeys).values(key).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function findKeyById(id: string, db: Db): Promise<NotesApiKeyRow | undefined> {
  const [row] = await db.select().from(notesApiKeys).where(eq(notesApiKeys.id, id));
  return row;
}

/** A page of the clinic's keys, newest first. */
export async function listKeysOfClinic(clinicId: string, page: { limit: number; offset: number }, db: Db): Promise<NotesApiKeyRow[]> {
  return db
    .select()
    .from(notesApiKeys)
    .where(eq(notesApiKeys.clinicId, clinicId))
    .orderBy(desc(notesApiKeys.createdAt), desc(notesApiKeys.id))
    .limit(page.limit)
    .offset(page.offset);
}

export async function countKeysOfClinic(clinicId: string, db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(notesApiKeys).where(eq(notesApiKeys.clinicId, clinicId));
  return Number(row?.n ?? 0);
}

/** The clinic's keys that authenticate: neither revoked, disabled nor expired. */
export async function countActiveKeys(clinicId: string, db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(notesApiKeys)
    .where(
      and(
        eq(notesApiKeys.clinicId, clinicId),
        isNull(notesApiKeys.revokedAt),
        isNull(notesApiKeys.disabledAt),
        or(isNull(notesApiKeys.expiresAt), gt(notesApiKeys.expiresAt, sql`now()`)),
      ),
    );
  return Number(row?.n ?? 0);
}

/**
 * Revokes key `id` and every key below it (the keys it created, the keys those created, ...) in one
 * statement: each gets revoked_at once, and one revoked before keeps its first time. Returns the ids
 * this call revoked (none when the whole tree was revoked already).
 */
export async function revokeKeyTree(id: string, clinicId: string, db: Db): Promise<string[]> {
  const result = (await db.execute(sql`
    with recursive tree as (
      select id from notes_api_keys where id = ${id} and clinic_id = ${clinicId}
      union
      select below.id from notes_api_keys below join tree on below.created_by_key_id = tree.id
      where below.clinic_id = ${clinicId}
    )
    update notes_api_keys set revoked_at = now()
    where id in (select id from tree) and revoked_at is null
    returning id`)) as unknown as { rows: { id: string }[] };
  return result.rows.map((row) => row.id);
}
