// Walking (and writing) the boxes of an MP4 file. Every size is a claim of the file's: a box is believed only
// when it fits inside its parent (or the file), and top-level boxes are found through one buffered
// window (a file of millions of tiny boxes costs one read per 64 KB, not one per box).

import { AudioSplitError, type FileWindow } from './file-io.ts';

export interface Box {
  type: string;
  /** Where the box's body starts and ends (in the buffer, or in the file for top-level boxes). */
  start: number;
  end: number;
}

/** The error for an m4a whose boxes say what their bytes do not hold. */
export const unreadableMp4 = (what: string) => new AudioSplitError(`the m4a audio cannot be read: ${what}`);

/** A `moov` or `moof` larger than this is not an audio recording's (an hour of AAC has ~0.5 MB). */
export const MAX_INDEX_BOX_BYTES = 32 * 2 ** 20;

/** The boxes of bytes [start, end) of `bytes`, up to the first that does not fit there. */
export function* boxes(bytes: Buffer, start: number, end: number): Generator<Box> {
  for (let pos = start; pos + 8 <= end; ) {
    let size = bytes.readUInt32BE(pos);
    let header = 8;
    if (size === 1) {
      if (pos + 16 > end) return;
      size = Number(bytes.readBigUInt64BE(pos + 8));
      header = 16;
    } else if (size === 0) size = end - pos;
    if (size < header || pos + size > end) return;
    yield { type: bytes.toString('latin1', pos + 4, pos + 8), start: pos + header, end: pos + size };
    pos += size;
  }
}

export const child = (bytes: Buffer, parent: Box | undefined, type: string): Box | undefined => {
  if (!parent) return undefined;
  for (const box of boxes(bytes, parent.start, parent.end)) if (box.type === type) return box;
  return undefined;
};

/** The file's top-level boxes, headers read through `window`; stops at the first that does not fit the file. */
export async function* topLevelBoxes(window: FileWindow): AsyncGenerator<Box & { pos: number }> {
  const { bytes, size } = window;
  for (let pos = 0; pos + 8 <= size; ) {
    let at = await window.at(pos, 8);
    if (at < 0) return;
    let boxSize = bytes.readUInt32BE(at);
    let header = 8;
    if (boxSize === 1) {
      at = await window.at(pos, 16);
      if (at < 0) return;
      boxSize = Number(bytes.readBigUInt64BE(at + 8));
      header = 16;
    } else if (boxSize === 0) boxSize = size - pos;
    if (boxSize < header || pos + boxSize > size) return;
    yield { type: bytes.toString('latin1', at + 4, at + 8), pos, start: pos + header, end: pos + boxSize };
    pos += boxSize;
  }
}

/** Reads a whole top-level box (header included) into memory, refusing one larger than an index box can be. */
export async function readBox(window: FileWindow, box: Box & { pos: number }): Promise<Buffer> {
  const length = box.end - box.pos;
  if (length > MAX_INDEX_BOX_BYTES) {
    throw unreadableMp4(`its ${box.type} box has ${length} bytes, more than ${MAX_INDEX_BOX_BYTES} (not an audio recording's)`);
  }
  const bytes = Buffer.alloc(length);
  const { bytesRead } = await window.handle.read(bytes, 0, length, box.pos);
  if (bytesRead !== length) throw unreadableMp4('the file ends inside its own boxes');
  return bytes;
}

/** A full box's entry count (after version and flags), checked against the entries its body holds. */
export function entryCount(bytes: Buffer, box: Box, headerBytes: number, entryBytes: number): number {
  if (box.start + headerBytes > box.end) throw unreadableMp4(`its ${box.type} box is too short for its header`);
  const count = bytes.readUInt32BE(box.start + 4);
  const fits = Math.floor((box.end - box.start - headerBytes) / entryBytes);
  if (count > fits) throw unreadableMp4(`its ${box.type} box says ${count} entries; its ${box.end - box.start} bytes hold ${fits}`);
  return count;
}

// --- writing boxes (the chunks the splitter cuts; crafted files in the tests) ---

/** Big-endian 32-bit words. */
export function u32(...values: number[]): Buffer {
  const bytes = Buffer.alloc(4 * values.length);
  for (const [i, value] of values.entries()) bytes.writeUInt32BE(value >>> 0, 4 * i);
  return bytes;
}

/** A box: its 32-bit size, its type, then `parts`. */
export function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = u32(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** A full box: version 0 and `flags` before the body. */
export const fullBox = (type: string, flags: number, ...parts: Buffer[]) => box(type, u32(flags), ...parts);
