/**
 * The name of the unique index a failed statement violated (SQLSTATE 23505), or undefined for any
 * other error. Drizzle wraps driver errors (`cause`); pg and PGlite both carry `code` and `constraint`.
 */
export function uniqueViolation(error: unknown): string | undefined {
  for (
    let current = error as { code?: string; constraint?: string; cause?: unknown } | undefined, depth = 0;
    current && depth < 4;
    depth++
  ) {
    if (current.code === '23505') return current.constraint ?? '';
    current = current.cause as typeof current;
  }
  return undefined;
}
