import type { Db } from '../../platform/db/client.ts';
import { eq, sql } from '../../platform/db/drizzle.ts';
import { notesApiKeys } from '../../platform/db/schema/index.ts';

/** The authentication lookup: by hash, prepared once per database (the hot path). */
export function prepareFindKeyByHash(db: Db) {
  return db
    .select({
      id: notesApiKeys.id,
      clinicId: notesApiKeys.clinicId,
      role: notesApiKeys.role,
      permissions: notesApiKeys.permissions,
      expiresAt: notesApiKeys.expiresAt,
      revokedAt: notesApiKeys.revokedAt,
      disabledAt: notesApiKeys.disabledAt,
    })
    .from(notesApiKeys)
    .where(eq(notesApiKeys.keyHash, sql.placeholder('hash')))
    .prepare('notes_key_by_hash');
}
