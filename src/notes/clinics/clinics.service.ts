import type { Db } from '../../platform/db/client.ts';
import { generateNotesKey } from '../auth/api-key.ts';
import { ROLE_PERMISSIONS, type Role } from '../callers.ts';
import { insertKey } from '../keys/keys.repo.ts';
import { findClinic, insertClinic } from './clinics.repo.ts';

export class ClinicNotFoundError extends Error {
  override name = 'ClinicNotFoundError';
}

/** An operator-made key (CLI, first start): full permissions of its role, no creator key. */
export async function issueOperatorKey(input: { clinicId: string; role: Role; name: string; expiresAt?: Date | null }, db: Db) {
  if (!(await findClinic(input.clinicId, db))) throw new ClinicNotFoundError(`No clinic ${input.clinicId}`);
  const { key, hash, prefix } = generateNotesKey();
  const row = await insertKey(
    {
      clinicId: input.clinicId,
      name: input.name,
      role: input.role,
      permissions: [...ROLE_PERMISSIONS[input.role]],
      keyHash: hash,
      prefix,
      expiresAt: input.expiresAt ?? null,
      createdByKeyId: null,
    },
    db,
  );
  return { id: row.id, key, role: row.role };
}

/** A clinic and its first administrator key (valid until `adminKeyExpiresAt`, if given), together or not at all. */
export async function createClinic(input: { name: string; quotaMinutes?: number | null; adminKeyExpiresAt?: Date }, db: Db) {
  return db.transaction(async (tx) => {
    const clinic = await insertClinic({ name: input.name, quotaMinutes: input.quotaMinutes ?? null }, tx);
    const admin = await issueOperatorKey(
      { clinicId: clinic.id, role: 'administrator', name: 'Administrator', expiresAt: input.adminKeyExpiresAt ?? null },
      tx,
    );
    return { clinic, adminKey: admin.key, adminKeyId: admin.id };
  });
}
