// Postgres refuses NUL in text and jsonb ("invalid byte sequence for encoding UTF8: 0x00"), and a
// lone UTF-16 surrogate has no UTF-8 form at all: either one reaching a query is a 500 from input
// alone. Every string a request carries is checked here once, before any SQL.

export interface UnstorableText {
  /** Dotted path of the offending value (or key) inside what was checked, e.g. `metadata.0.value`. */
  field: string;
  reason: string;
}

const NUL_REASON = 'contains a NUL character (\\u0000), which cannot be stored';
const SURROGATE_REASON = 'contains a lone UTF-16 surrogate, which is not valid Unicode text';

/** Why `text` cannot be stored, or undefined when it can. */
export function unstorableReason(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL_REASON;
  if (!text.isWellFormed()) return SURROGATE_REASON;
  return undefined;
}

/**
 * The first string (value or object key) in `value` Postgres could not store, walking objects and
 * arrays iteratively (a deeply nested body must not overflow the stack). The field of a bare string
 * is the empty path.
 */
export function findUnstorableText(value: unknown): UnstorableText | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (pending.length > 0) {
    const next = pending.pop() as { value: unknown; path: string };
    if (typeof next.value === 'string') {
      const reason = unstorableReason(next.value);
      if (reason) return { field: next.path, reason };
      continue;
    }
    if (typeof next.value !== 'object' || next.value === null) continue;
    for (const [key, child] of Object.entries(next.value)) {
      const path = next.path ? `${next.path}.${key}` : key;
      const keyReason = unstorableReason(key);
      if (keyReason) return { field: next.path ? `${next.path}.${printable(key)}` : printable(key), reason: `key ${keyReason}` };
      pending.push({ value: child, path });
    }
  }
  return undefined;
}

// A key that cannot be stored cannot be echoed either: the response body is JSON text too.
function printable(key: string): string {
  return key.replaceAll('\u0000', '\\u0000').toWellFormed();
}
