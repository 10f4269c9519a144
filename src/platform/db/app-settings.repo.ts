import type { Db } from './client.ts';
import { eq, type SQL, sql } from './drizzle.ts';
import { appSettings } from './schema/index.ts';

/**
 * Writes `key` unless it exists: true for the one caller that wrote it (concurrent callers wait on
 * the primary key, then see it), which makes the key a "done once" mark across processes.
 */
export async function claimSetting(key: string, value: unknown | SQL, tx: Db): Promise<boolean> {
  const claimed = await tx.insert(appSettings).values({ key, value }).onConflictDoNothing().returning({ key: appSettings.key });
  return claimed.length > 0;
}

export async function updateSetting(key: string, value: unknown | SQL, tx: Db): Promise<void> {
  await tx.update(appSettings).set({ value }).where(eq(appSettings.key, key));
}

/** A setting's value stamped with the database's time: `{"at": now(), ...fields}`. */
export function stampedValue(fields: Record<string, string> = {}): SQL {
  const pairs = Object.entries(fields).map(([key, value]) => sql`, ${key}::text, ${value}::text`);
  return sql`jsonb_build_object('at', now()${sql.join(pairs)})`;
}

/** A setting's value; undefined when it was never written. */
export async function readSetting<T>(key: string, tx: Db): Promise<T | undefined> {
  const [row] = await tx.select({ value: appSettings.value }).from(appSettings).where(eq(appSettings.key, key));
  return row?.value as T | undefined;
}
