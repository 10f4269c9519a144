import type { Db } from '../../platform/db/client.ts';
import { and, asc, eq, sql } from '../../platform/db/drizzle.ts';
import { crmSessions, crmUsers } from '../../platform/db/schema/index.ts';

export type CrmUserRow = typeof crmUsers.$inferSelect;

/** Inserts a user; undefined when the email is taken (the unique index decides, race-free). */
export async function insertUser(
  values: Pick<CrmUserRow, 'workspaceId' | 'email' | 'passwordHash' | 'role'>,
  tx: Db,
): Promise<CrmUserRow | undefined> {
  const [row] = await tx.insert(crmUsers).values(values).onConflictDoNothing({ target: crmUsers.email }).returning();
  return row;
}

export async function findUserByEmail(email: string, tx: Db): Promise<CrmUserRow | undefined> {
  const [row] = await tx.select().from(crmUsers).where(eq(crmUsers.email, email));
  return row;
}

export async function listUsersOfWorkspace(workspaceId: string, tx: Db): Promise<CrmUserRow[]> {
  return tx.select().from(crmUsers).where(eq(crmUsers.workspaceId, workspaceId)).orderBy(asc(crmUsers.email));
}

/** Disables (keeping the first time) or re-enables a user of the workspace; undefined when it has no such user. */
export async function setUserDisabled(workspaceId: string, userId: string, disabled: boolean, tx: Db): Promise<CrmUserRow | undefined> {
  const [row] = await tx
    .update(crmUsers)
    .set({ disabledAt: disabled ? sql`coalesce(${crmUsers.disabledAt}, now())` : null })
    .where(and(eq(crmUsers.workspaceId, workspaceId), eq(crmUsers.id, userId)))
    .returning();
  return row;
}

/** The time after which the user can no longer log in (the demo administrator's login). */
export async function setUserExpiry(userId: string, expiresAt: Date, tx: Db): Promise<void> {
  await tx.update(crmUsers).set({ expiresAt }).where(eq(crmUsers.id, userId));
}

/**
 * Ends every session of the user ("log out everywhere", a disabled user). Here rather than in
 * auth/: disabling a user ends their sessions in the same transaction, and users/ is below auth/.
 */
export async function deleteSessionsOfUser(userId: string, tx: Db): Promise<number> {
  const rows = await tx.delete(crmSessions).where(eq(crmSessions.userId, userId)).returning({ id: crmSessions.id });
  return rows.length;
}
