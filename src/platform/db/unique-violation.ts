/**
 * The driver's error behind a failed statement, if any: drizzle wraps driver errors (`cause`); pg
 * and PGlite both carry the SQLSTATE as `code` (and `constraint` for a violated constraint).
 */
function driverErrorOf(error: unknown): { code: string; constraint?: string } | undefined {
  for (
    let current = error as { code?: unknown; constraint?: string; cause?: unknown } | undefined, depth = 0;
    current && depth < 4;
    depth++
  ) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code)) return current as { code: string; constraint?: string };
    current = current.cause as typeof current;
  }
  return undefined;
}

/** The name of the unique index a failed statement violated (SQLSTATE 23505), or undefined for any other error. */
export function uniqueViolation(error: unknown): string | undefined {
  const driverError = driverErrorOf(error);
  return driverError?.code === '23505' ? (driverError.constraint ?? '') : undefined;
}

/** The SQLSTATE of a failed statement (a function's own `RAISE … USING ERRCODE`, say), or undefined. */
export function sqlStateOf(error: unknown): string | undefined {
  return driverErrorOf(error)?.code;
}

/** True when the statement was chosen as a deadlock's victim (SQLSTATE 40P01): it wrote nothing and may run again. */
export function deadlockVictim(error: unknown): boolean {
  return driverErrorOf(error)?.code === '40P01';
}
