import type { Db } from '../../platform/db/client.ts';
import { and, eq, gt, isNull, lt, or, sql } from '../../platform/db/drizzle.ts';
import { crmSessions, crmUsers, workspaces } from '../../platform/db/schema/index.ts';

export async function insertSession(userId: string, tokenHash: string, ttlMinutes: number, tx: Db) {
  // Expired sessions of anyone are useless: drop them while we are here (indexed on expires_at).
  await tx.delete(crmSessions).where(lt(crmSessions.expiresAt, sql`now()`));
  const [row] = await tx
    .insert(crmSessions)
    .values({ userId, tokenHash, expiresAt: sql`now() + make_interval(mins => ${ttlMinutes}::int)` })
    .returning();
  return row!;
}

/**
 * The live session with this token hash, with its user and workspace: not expired, used within the
 * last `idleMinutes`, of a user who is neither disabled nor expired.
 */
export async function findLiveSession(tokenHash: string, idleMinutes: number, tx: Db) {
  const [row] = await tx
    .select({
      sessionId: crmSessions.id,
      expiresAt: crmSessions.expiresAt,
      lastSeenAt: crmSessions.lastSeenAt,
      userId: crmUsers.id,
      email: crmUsers.email,
      role: crmUsers.role,
      workspaceId: workspaces.id,
      workspaceName: workspaces.name,
    })
    .from(crmSessions)
    .innerJoin(crmUsers, eq(crmUsers.id, crmSessions.userId))
    .innerJoin(workspaces, eq(workspaces.id, crmUsers.workspaceId))
    .where(
      and(
        eq(crmSessions.tokenHash, tokenHash),
        gt(crmSessions.expiresAt, sql`now()`),
        gt(crmSessions.lastSeenAt, sql`now() - make_interval(mins => ${idleMinutes}::int)`),
        isNull(crmUsers.disabledAt),
        or(isNull(crmUsers.expiresAt), gt(crmUsers.expiresAt, sql`now()`)),
      ),
    );
  return row;
}

/** Marks the session used now: the idle timeout starts again. */
export async function touchSession(sessionId: string, tx: Db): Promise<void> {
  await tx.update(crmSessions).set({ lastSeenAt: sql`now()` }).where(eq(crmSessions.id, sessionId));
}

export async function deleteSession(tokenHash: string, tx: Db): Promise<void> {
  await tx.delete(crmSessions).where(eq(crmSessions.tokenHash, tokenHash));
}
