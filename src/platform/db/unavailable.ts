// Which errors mean "the database cannot be reached right now" (an outage the client should retry
// after a pause: 503 + Retry-After) rather than a bug (500). Drizzle wraps the pg error in `cause`
// and pg-boss re-emits plain copies (`{...error, message}`), so both are looked through; other
// causes are not followed, so a provider's network error (fetch failed → ECONNRESET) is not
// mistaken for the database. What looks like an outage is confirmed by a probe before anything
// waits on it (see availability.ts).

import { DrizzleQueryError } from './drizzle.ts';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

// SQLSTATEs of a server that is going away, not accepting, overloaded or timing us out.
const SERVER_CODES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '53300', // too_many_connections
  '57014', // query_canceled: statement_timeout
  '25P03', // idle_in_transaction_session_timeout
]);

// Messages pg, pg-pool and pg-boss throw without a code when a connection cannot be made or has died.
const CLIENT_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'connection timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  // pg-boss's own LISTEN connection, which it reconnects by itself.
  'LISTEN/NOTIFY heartbeat timed out',
  'LISTEN/NOTIFY connection ended',
];

/**
 * Thrown at once, without touching the network, for work asked of the database while it is known
 * to be unreachable (and for work that was waiting on it when that became known): see
 * guarded-pool.ts.
 */
export class DatabaseDownError extends Error {
  override readonly name = 'DatabaseDownError';
  readonly code = 'DATABASE_DOWN';

  constructor() {
    super('database unreachable: refused without waiting');
  }
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (current instanceof DatabaseDownError) return true;
    const { code, message, errors, cause } = current as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) return true;
    // pg throws these as plain Errors: a named subclass (a provider's error) merely quoting such
    // words is not the database's.
    const plain = !(current instanceof Error) || current.name === 'Error';
    if (plain && typeof message === 'string' && CLIENT_MESSAGES.some((text) => message.includes(text))) return true;
    // Connecting to "localhost" tries ::1 and 127.0.0.1: both refusals arrive as an AggregateError.
    if (Array.isArray(errors) && errors.length > 0 && errors.every((inner) => isDatabaseUnavailable(inner))) return true;
    // Only drizzle's wrapper is looked through: other wrappers are not the database's.
    current = current instanceof DrizzleQueryError ? cause : undefined;
  }
  return false;
}
