import { DrizzleQueryError } from './db/drizzle.ts';

// How errors are written to the log. A failed query must never carry its bound parameters
// (patient names, phones, e-mails, key hashes), and Postgres puts values in its messages and
// details ("Key (email)=(ana@...) already exists", 'invalid input syntax for type uuid: "..."').
// So a database error is logged as the statement it ran (verb and table, no values) and its
// SQLSTATE and constraint; any other error keeps its message and stack, and a small set of
// descriptive fields, never every enumerable property.

const KEPT_FIELDS = ['code', 'statusCode', 'status', 'errno', 'syscall', 'retryable', 'queue', 'worker'] as const;
// Postgres error fields that name schema objects, never values.
const DATABASE_FIELDS = ['code', 'severity', 'constraint', 'table', 'column', 'dataType', 'routine'] as const;
const MAX_DEPTH = 5;

export type SerializedError = Record<string, unknown>;

export function serializeError(error: unknown): SerializedError {
  return serialize(error, 0);
}

function serialize(error: unknown, depth: number): SerializedError {
  if (error === null || typeof error !== 'object') return { message: String(error) };
  if (error instanceof DrizzleQueryError) {
    return {
      type: 'DatabaseQueryError',
      statement: statementName(error.query),
      stack: stackFrames(error.stack),
      ...(error.cause !== undefined && depth < MAX_DEPTH ? { cause: serialize(error.cause, depth + 1) } : {}),
    };
  }
  const fields = error as Record<string, unknown>;
  if (isPostgresError(fields)) {
    const serialized: SerializedError = { type: 'DatabaseError' };
    for (const field of DATABASE_FIELDS) if (fields[field] !== undefined) serialized[field] = fields[field];
    return serialized;
  }
  const serialized: SerializedError = {
    type: error instanceof Error ? error.constructor.name : 'Object',
    message: typeof fields.message === 'string' ? fields.message : String(error),
  };
  if (typeof fields.stack === 'string') serialized.stack = fields.stack;
  for (const field of KEPT_FIELDS) if (fields[field] !== undefined && typeof fields[field] !== 'object') serialized[field] = fields[field];
  if (Array.isArray(fields.errors) && depth < MAX_DEPTH)
    serialized.errors = fields.errors.slice(0, 5).map((inner) => serialize(inner, depth + 1));
  if (fields.cause !== undefined && depth < MAX_DEPTH) serialized.cause = serialize(fields.cause, depth + 1);
  return serialized;
}

// pg's DatabaseError (and pg-boss's plain copies of it): a five-character SQLSTATE and a severity.
function isPostgresError(fields: Record<string, unknown>): boolean {
  return typeof fields.severity === 'string' && typeof fields.code === 'string' && /^[0-9A-Z]{5}$/.test(fields.code);
}

/**
 * A name for a statement that carries no value: its verb and the first table or function it
 * touches, e.g. `insert into "contacts"`, `select vetflow_upsert_contact()`. Values are bound
 * parameters ($1), but a literal could still sit in the text, so the text itself is not logged.
 */
export function statementName(query: string): string {
  const verb = /^\s*(\w+)/.exec(query)?.[1]?.toLowerCase() ?? 'statement';
  const call = /^\s*select\s+"?([A-Za-z_][\w]*)"?\s*\(/i.exec(query);
  if (call) return `select ${call[1]}()`;
  const target = /\b(from|into|update|join)\s+("?[A-Za-z_][\w]*"?(?:\."?[A-Za-z_][\w]*"?)?)/i.exec(query);
  if (!target) return verb;
  const keyword = target[1]?.toLowerCase();
  return keyword === verb ? `${verb} ${target[2]}` : `${verb} ${keyword} ${target[2]}`;
}

// The frames only: the first line of a stack repeats the message, which is what must not leak.
function stackFrames(stack: string | undefined): string | undefined {
  if (!stack) return undefined;
  const index = stack.indexOf('\n    at ');
  return index === -1 ? undefined : stack.slice(index + 1);
}
