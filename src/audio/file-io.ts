// Reading and copying parts of an audio file through fixed buffers: cutting a chunk allocates
// nothing per byte read, so memory stays the same whatever the file's length.

import type { FileHandle } from 'node:fs/promises';

export interface WrittenChunk {
  /** Where the chunk's first packet sits in the whole audio (< 0 for a priming packet): its transcript's times start here. */
  offsetSeconds: number;
  durationSeconds: number;
}

export interface AudioSplitter {
  /** Writes the packets covering [start, end) seconds to `outPath`, timed from 0; `end` may be Infinity. */
  cut(start: number, end: number, outPath: string): Promise<WrittenChunk>;
  close(): void;
}

/** The audio cannot be read as its format says (corrupt, or a codec the container writer lacks). */
export class AudioSplitError extends Error {
  override name = 'AudioSplitError';
}

/** Reads and copies through this much memory. */
export const IO_BUFFER_BYTES = 64 * 1024;

/**
 * A window of a file: `at(pos, n)` makes bytes [pos, pos + n) readable in `bytes` and returns
 * where they start there, or -1 when the file ends first. Sequential reads refill it once per
 * window; nothing is allocated after construction.
 */
export class FileWindow {
  readonly bytes = Buffer.allocUnsafe(IO_BUFFER_BYTES);
  readonly handle: FileHandle;
  readonly size: number;
  private start = 0;
  private length = 0;

  constructor(handle: FileHandle, size: number) {
    this.handle = handle;
    this.size = size;
  }

  async at(pos: number, n: number): Promise<number> {
    if (pos < 0 || pos + n > this.size) return -1;
    if (pos < this.start || pos + n > this.start + this.length) {
      const { bytesRead } = await this.handle.read(this.bytes, 0, Math.min(this.bytes.length, this.size - pos), pos);
      this.start = pos;
      this.length = bytesRead;
      if (bytesRead < n) return -1;
    }
    return pos - this.start;
  }
}

/** Copies bytes [from, to) of `source` to the end of `target` through `buffer`. */
export async function copyRange(source: FileHandle, from: number, to: number, target: FileHandle, buffer: Buffer): Promise<void> {
  for (let pos = from; pos < to; ) {
    const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, to - pos), pos);
    if (bytesRead === 0) throw new AudioSplitError('the audio file ended before its own length');
    await writeAll(target, buffer.subarray(0, bytesRead));
    pos += bytesRead;
  }
}

export async function writeAll(target: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.byteLength; ) {
    const { bytesWritten } = await target.write(bytes, done, bytes.byteLength - done);
    done += bytesWritten;
  }
}
