/** The server to create test databases on: TEST_DATABASE_URL, else DATABASE_URL, else none (embedded). */
export function adminDatabaseUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  return url && url.trim() !== '' ? url.trim() : undefined;
}

/** `url` with its database name replaced. */
export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}
