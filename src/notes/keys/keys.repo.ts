import type { Db } from '../../platform/db/client.ts';
import { and, desc, eq, isNull, sql } from '../../platform/db/drizzle.ts';
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

export async function listKeysOfClinic(clinicId: string, db: Db): Promise<NotesApiKeyRow[]> {
  return db.select().from(notesApiKeys).where(eq(notesApiKeys.clinicId, clinicId)).orderBy(desc(notesApiKeys.createdAt));
}

/** Sets revoked_at once; revoking again keeps the first time. */
export async function revokeKey(id: string, db: Db): Promise<NotesApiKeyRow | undefined> {
  await db
    .update(notesApiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(notesApiKeys.id, id), isNull(notesApiKeys.revokedAt)));
  return findKeyById(id, db);
}
