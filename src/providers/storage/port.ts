import type { Readable } from 'node:stream';

/** Bytes `start` to `end`, both included (HTTP's `bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where uploaded audio lives. Uploads are first streamed to a local temporary file (to hash, sniff
 * and measure them); `putFile` then moves that file into storage under `key`.
 */
export interface AudioStorage {
  readonly name: string;
  /** Moves (or uploads) the local file at `localPath` to `key`; the local file is gone afterwards. */
  putFile(key: string, localPath: string): Promise<void>;
  /** The stored bytes, or only `range` (inclusive offsets, as in an HTTP Range) when given. */
  open(key: string, range?: ByteRange): Readable;
  /** Removes `key`; absent keys are fine. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}
