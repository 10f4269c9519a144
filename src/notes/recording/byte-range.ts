import { parse } from 'range-parser';
import type { ByteRange } from '../../providers/storage/port.ts';

/** What a Range header asks of a file of `size` bytes. */
export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * Reads a Range header (RFC 9110 §14) for one file:
 * - none, or a unit other than `bytes` (which must be ignored) → the whole file (200);
 * - one range, `bytes=a-b`, `bytes=a-` or `bytes=-n` (an end past the file is cut to it) → 206;
 * - several ranges → the whole file (200): a server may ignore a Range, and a player asks one at a time;
 * - a `bytes` range that is malformed (`bytes=abc`, `bytes=5-2`) or starts past the end → 416.
 * Parsing is range-parser's (the one Express and `send` use).
 */
export function readRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const parsed = parse(size, header);
  if (parsed.type !== 'bytes') return { kind: 'whole' };
  // Bit 1: a malformed range; bit 2: a range that starts past the end. Either refuses the request.
  if (parsed.code !== 0 || parsed.ranges.length === 0) return { kind: 'unsatisfiable' };
  if (parsed.ranges.length > 1) return { kind: 'whole' };
  const [range] = parsed.ranges;
  return range ? { kind: 'partial', range: { start: range.start, end: range.end } } : { kind: 'unsatisfiable' };
}
