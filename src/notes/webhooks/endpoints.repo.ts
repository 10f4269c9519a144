import type { Db } from '../../platform/db/client.ts';
import { and, arrayContains, count, desc, eq, sql } from '../../platform/db/drizzle.ts';
import { webhookEndpoints } from '../../platform/db/schema/index.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type NewEndpoint = typeof webhookEndpoints.$inferInsert;
export type EndpointChanges = Partial<
  Pick<
    NewEndpoint,
    | 'url'
    | 'description'
    | 'events'
    | 'enabled'
    | 'disabledReason'
    | 'failingSince'
    | 'secretEncrypted'
    | 'previousSecretEncrypted'
    | 'previousSecretExpiresAt'
  >
>;

export async function insertEndpoint(endpoint: NewEndpoint, db: Db): Promise<EndpointRow> {
  const [row] = await db.insert(webhookEndpoints).values(endpoint).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function findEndpoint(id: string, db: Db): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}

/** A page of the clinic's endpoints, newest first. */
export async function listEndpoints(clinicId: string, page: { limit: number; offset: number }, db: Db): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.clinicId, clinicId))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id))
    .limit(page.limit)
    .offset(page.offset);
}

/** Every endpoint of the clinic, enabled or not. */
export async function countEndpoints(clinicId: string, db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.clinicId, clinicId));
  return Number(row?.n ?? 0);
}

export async function updateEndpoint(id: string, changes: EndpointChanges, db: Db): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row;
}

/**
 * Puts a new secret in place and keeps the one it replaces as the previous one until `expiresAt`,
 * in one statement: the replaced secret is the row's own at that moment (`SET` reads the old
 * value), so of two rotations at once the second keeps the first's secret, rather than both
 * keeping the one they read before and the first's being lost. Undefined when the endpoint is gone.
 */
export async function rotateEndpointSecret(id: string, secretEncrypted: string, expiresAt: Date, db: Db): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      secretEncrypted,
      previousSecretEncrypted: sql`${webhookEndpoints.secretEncrypted}`,
      previousSecretExpiresAt: expiresAt,
      updatedAt: sql`now()`,
    })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row;
}

export async function deleteEndpoint(id: string, db: Db): Promise<void> {
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
}

/** The clinic's enabled endpoints that subscribed to `type`. */
export async function subscribedEndpoints(clinicId: string, type: string, db: Db): Promise<{ id: string }[]> {
  return db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(eq(webhookEndpoints.clinicId, clinicId), eq(webhookEndpoints.enabled, true), arrayContains(webhookEndpoints.events, [type])),
    );
}

/** A success ends the endpoint's run of failures. */
export async function markEndpointHealthy(id: string, db: Db): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ failingSince: null })
    .where(and(eq(webhookEndpoints.id, id), sql`${webhookEndpoints.failingSince} is not null`));
}

/**
 * A failed attempt: starts the endpoint's run of failures, or, once the run has lasted
 * `disableAfterSeconds`, disables the endpoint. Returns true when this call disabled it.
 */
export async function markEndpointFailing(id: string, disableAfterSeconds: number, db: Db): Promise<boolean> {
  await db
    .update(webhookEndpoints)
    .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, now())` })
    .where(eq(webhookEndpoints.id, id));
  const disabled = await db
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: 'failing', updatedAt: sql`now()` })
    .where(
      and(
        eq(webhookEndpoints.id, id),
        eq(webhookEndpoints.enabled, true),
        sql`${webhookEndpoints.failingSince} <= now() - make_interval(secs => ${disableAfterSeconds})`,
      ),
    )
    .returning({ id: webhookEndpoints.id });
  return disabled.length > 0;
}

export type SealedSecrets = Pick<EndpointRow, 'id' | 'secretEncrypted' | 'previousSecretEncrypted'>;

/** Every endpoint's sealed secrets (the operator's re-encryption after a key rotation walks them). */
export async function allSealedSecrets(db: Db): Promise<SealedSecrets[]> {
  return db
    .select({
      id: webhookEndpoints.id,
      secretEncrypted: webhookEndpoints.secretEncrypted,
      previousSecretEncrypted: webhookEndpoints.previousSecretEncrypted,
    })
    .from(webhookEndpoints)
    .orderBy(webhookEndpoints.id);
}

/**
 * Replaces an endpoint's sealed secrets only if they are still `before`: a secret rotated through
 * the API meanwhile is newer than the re-encryption's and is kept. True when replaced.
 */
export async function replaceSealedSecrets(before: SealedSecrets, after: Omit<SealedSecrets, 'id'>, db: Db): Promise<boolean> {
  const rows = await db
    .update(webhookEndpoints)
    .set({ ...after, updatedAt: sql`now()` })
    .where(
      and(
        eq(webhookEndpoints.id, before.id),
        eq(webhookEndpoints.secretEncrypted, before.secretEncrypted),
        before.previousSecretEncrypted === null
          ? sql`${webhookEndpoints.previousSecretEncrypted} is null`
          : eq(webhookEndpoints.previousSecretEncrypted, before.previousSecretEncrypted),
      ),
    )
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}
