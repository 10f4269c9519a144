import type { Readable } from 'node:stream';

/**
 * Where uploaded audio lives. Uploads are first streamed to a local temporary file (to hash, sniff
 * and measure them); `putFile` then moves that file into storage under `key`.
 */
export interface AudioStorage {
  readonly name: string;
  /** Moves (or uploads) the local file at `localPath` to `key`; the local file is gone afterwards. */
  putFile(key: string, localPath: string): Promise<void>;
  open(key: string): Readable;
  /** Removes `key`; absent keys are fine. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}
