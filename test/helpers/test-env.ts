/** The server to create test databases on: TEST_DATABASE_URL, else DATABASE_URL, else none (embedded). */
export function adminDatabaseUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  return url && url.trim() !== '' ? url.trim() : undefined;
}

/**
 * The Postgres server itself when TEST_DATABASE_URL is a transaction-mode pooler in front of it
 * (the CI's pooler stage): test databases are created, migrated and dropped there, and every app
 * gets its database there as DATABASE_DIRECT_URL, as an operator behind such a pooler sets it.
 */
export function directDatabaseUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_DIRECT_URL;
  return url && url.trim() !== '' ? url.trim() : undefined;
}

/** `url` with its database name replaced. */
export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}
