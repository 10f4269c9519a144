import type { Db } from '../../platform/db/client.ts';
import { eq } from '../../platform/db/drizzle.ts';
import { crmUsers } from '../../platform/db/schema/index.ts';

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
