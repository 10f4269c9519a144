// WAV chunks by arithmetic: the header says how many bytes a second takes and how large one
// sample frame (block) is, so the chunk for a time range is a byte range of the data, copied after
// the source's own format chunk. Nothing is decoded or indexed.

import { type FileHandle, open } from 'node:fs/promises';
import { AudioSplitError, type AudioSplitter, copyRange, FileWindow, IO_BUFFER_BYTES, type WrittenChunk, writeAll } from './file-io.ts';

/** A `fmt ` chunk holds a few dozen bytes (WAVE_FORMAT_EXTENSIBLE: 40); a larger one is not a format. */
const MAX_FMT_BYTES = 1024;

export interface WavLayout {
  /** The whole `fmt ` chunk (header and body, padded to even), copied into every chunk. */
  fmtChunk: Buffer;
  byteRate: number;
  blockAlign: number;
  dataStart: number;
  dataBytes: number;
}

/**
 * The format and data chunks. Chunk headers are read through one buffered window (a file of
 * millions of empty chunks costs one read per 64 KB), and every size is checked against the file:
 * a `fmt ` larger than any format needs is skipped, a `data` size past the end (0xFFFFFFFF from a
 * recorder that streamed the file, or a lie) is cut to the bytes that are there.
 */
export async function readLayout(handle: FileHandle, size: number): Promise<WavLayout> {
  const window = new FileWindow(handle, size);
  const head = await window.at(0, 12);
  if (
    head < 0 ||
    window.bytes.toString('latin1', head, head + 4) !== 'RIFF' ||
    window.bytes.toString('latin1', head + 8, head + 12) !== 'WAVE'
  ) {
    throw new AudioSplitError('the wav audio has no RIFF/WAVE header');
  }
  let fmtChunk: Buffer | null = null;
  for (let pos = 12; pos + 8 <= size; ) {
    const at = await window.at(pos, 8);
    const id = window.bytes.toString('latin1', at, at + 4);
    const bytes = window.bytes.readUInt32LE(at + 4);
    if (id === 'fmt ' && bytes >= 16 && bytes <= MAX_FMT_BYTES) {
      const length = 8 + bytes + (bytes % 2);
      const fmtAt = await window.at(pos, Math.min(length, size - pos));
      if (fmtAt < 0 || length > size - pos) break;
      fmtChunk = Buffer.from(window.bytes.subarray(fmtAt, fmtAt + length));
    } else if (id === 'data') {
      if (!fmtChunk) break;
      const byteRate = fmtChunk.readUInt32LE(16);
      const blockAlign = fmtChunk.readUInt16LE(20);
      if (byteRate === 0 || blockAlign === 0) break;
      const dataStart = pos + 8;
      // A recorder that streamed the file may have left the size 0 or 0xFFFFFFFF: the data runs to the end.
      const dataBytes = bytes === 0 || dataStart + bytes > size ? size - dataStart : bytes;
      return { fmtChunk, byteRate, blockAlign, dataStart, dataBytes };
    }
    pos += 8 + bytes + (bytes % 2);
  }
  throw new AudioSplitError('the wav audio has no readable fmt and data chunks');
}

/**
 * The RIFF/WAVE header of a file holding `fmtChunk` and then `dataBytes` bytes of samples (a pad
 * byte follows an odd count, which the RIFF size includes): what goes before the copied data of a
 * chunk cut out of one file or of files joined into one.
 */
export function wavHeader(fmtChunk: Buffer, dataBytes: number): Buffer {
  const header = Buffer.alloc(12 + fmtChunk.length + 8);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(header.length - 8 + dataBytes + (dataBytes % 2), 4);
  header.write('WAVE', 8, 'latin1');
  fmtChunk.copy(header, 12);
  header.write('data', 12 + fmtChunk.length, 'latin1');
  header.writeUInt32LE(dataBytes, 16 + fmtChunk.length);
  return header;
}

export async function openWavSplitter(sourcePath: string): Promise<AudioSplitter> {
  const handle = await open(sourcePath, 'r');
  let layout: WavLayout;
  try {
    layout = await readLayout(handle, (await handle.stat()).size);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const { fmtChunk, byteRate, blockAlign, dataStart, dataBytes } = layout;
  const blocks = Math.floor(dataBytes / blockAlign);
  const buffer = Buffer.allocUnsafe(IO_BUFFER_BYTES);
  const blockAt = (seconds: number) => Math.min(blocks - 1, Math.max(0, Math.floor((seconds * byteRate) / blockAlign)));

  async function cut(start: number, end: number, outPath: string): Promise<WrittenChunk> {
    if (blocks === 0) throw new AudioSplitError('the wav audio has no samples');
    // A header that says more time than the data holds (a data size cut to the file) leaves later chunks empty.
    if (start > 0 && start * byteRate >= blocks * blockAlign) {
      throw new AudioSplitError(
        `the wav audio has no samples at ${start} s (its data ends at ${((blocks * blockAlign) / byteRate).toFixed(1)} s)`,
      );
    }
    // From the block playing at `start` to the one playing at `end`, both included.
    const first = blockAt(start);
    const last = Number.isFinite(end) ? blockAt(end) : blocks - 1;
    const bytes = (last - first + 1) * blockAlign;
    const header = wavHeader(fmtChunk, bytes);
    const target = await open(outPath, 'w');
    try {
      await writeAll(target, header);
      await copyRange(handle, dataStart + first * blockAlign, dataStart + first * blockAlign + bytes, target, buffer);
      if (bytes % 2) await writeAll(target, Buffer.alloc(1));
    } finally {
      await target.close();
    }
    return { offsetSeconds: (first * blockAlign) / byteRate, durationSeconds: bytes / byteRate };
  }

  return { cut, close: () => void handle.close() };
}
