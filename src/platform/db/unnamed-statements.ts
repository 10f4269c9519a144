// Behind a transaction-mode pooler each transaction (and each statement outside one) may run on a
// different server session. A statement prepared under a name lives in the session that parsed it:
// the next use lands on another session, which does not know it (26000 "prepared statement ... does
// not exist") or already holds one of that name from another client (42P05 "already exists").
// An unnamed statement is parsed, bound and run in one exchange, inside one transaction, so it
// survives any pooler. drizzle's `.prepare(name)` and pg's `{ name, text }` queries both reach the
// pool as a query config with a `name`: dropping it here keeps every caller's code as it is, and the
// statements keep what drizzle built once (only the server's parse is repeated).

/** The arguments of a `query(...)` call with the statement name removed from its query config. */
export function withoutStatementName(args: unknown[]): unknown[] {
  const [first, ...rest] = args;
  if (!first || typeof first !== 'object' || !('name' in first) || !first.name) return args;
  // A Submittable (a cursor, a stream) is pg's own object, not a plain config: left as it is.
  if (typeof (first as { submit?: unknown }).submit === 'function') return args;
  const { name: _name, ...unnamed } = first as Record<string, unknown>;
  return [unnamed, ...rest];
}
