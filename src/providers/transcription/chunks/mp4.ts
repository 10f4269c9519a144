// M4A (MP4 audio) chunks from the sample table: the `moov` box lists every sample's size, duration
// and place in the file, so a time range is a run of samples whose bytes are copied into a new
// file with its own small `moov` (the source's sample description copied as is: no re-encoding).
// Memory is the source's sample table as typed arrays (a few bytes per sample: ~1 MB for an hour
// of AAC) and one copy buffer. Layouts this does not read (fragmented MP4, compact sample sizes,
// several sample descriptions) answer null, and the caller falls back to mediabunny.

import { type FileHandle, open } from 'node:fs/promises';
import { AudioSplitError, type AudioSplitter, copyRange, IO_BUFFER_BYTES, type WrittenChunk, writeAll } from './file-io.ts';

/** A `moov` larger than this is not an audio recording's (an hour of AAC has ~0.5 MB). */
const MAX_MOOV_BYTES = 32 * 2 ** 20;

interface SampleTable {
  /** The whole `stsd` box, copied into every chunk. */
  stsd: Buffer;
  timescale: number;
  /** Seconds added to a sample's decode time to place it in the presentation (edit list). */
  shiftSeconds: number;
  /** Decode time of each sample in `timescale` units, plus the end of the last: n + 1 entries. */
  times: Float64Array;
  offsets: Float64Array;
  sizes: Uint32Array;
}

interface Box {
  type: string;
  /** Where the box's body starts and ends in the buffer. */
  start: number;
  end: number;
}

function* boxes(bytes: Buffer, start: number, end: number): Generator<Box> {
  for (let pos = start; pos + 8 <= end; ) {
    let size = bytes.readUInt32BE(pos);
    let header = 8;
    if (size === 1) {
      size = Number(bytes.readBigUInt64BE(pos + 8));
      header = 16;
    } else if (size === 0) size = end - pos;
    if (size < header || pos + size > end) return;
    yield { type: bytes.toString('latin1', pos + 4, pos + 8), start: pos + header, end: pos + size };
    pos += size;
  }
}

const child = (bytes: Buffer, parent: Box | undefined, type: string) =>
  parent ? [...boxes(bytes, parent.start, parent.end)].find((box) => box.type === type) : undefined;

/** Finds the top-level `moov` by hopping over box headers (it may come after a large `mdat`). */
async function readMoov(handle: FileHandle, size: number): Promise<Buffer | null> {
  const header = Buffer.alloc(16);
  for (let pos = 0; pos + 8 <= size; ) {
    await handle.read(header, 0, 16, pos);
    let boxSize = header.readUInt32BE(0);
    if (boxSize === 1) boxSize = Number(header.readBigUInt64BE(8));
    else if (boxSize === 0) boxSize = size - pos;
    if (boxSize < 8) return null;
    if (header.toString('latin1', 4, 8) === 'moov') {
      if (boxSize > MAX_MOOV_BYTES || pos + boxSize > size) return null;
      const moov = Buffer.alloc(boxSize);
      await handle.read(moov, 0, boxSize, pos);
      return moov;
    }
    pos += boxSize;
  }
  return null;
}

/** The first sound track's sample table, or null for a layout this reader leaves to mediabunny. */
function sampleTable(moov: Buffer): SampleTable | null {
  const root = [...boxes(moov, 0, moov.length)][0];
  if (!root || child(moov, root, 'mvex')) return null;
  const mvhd = child(moov, root, 'mvhd');
  const movieTimescale = mvhd ? moov.readUInt32BE(mvhd.start + (moov[mvhd.start] === 1 ? 20 : 12)) : 0;
  for (const trak of boxes(moov, root.start, root.end)) {
    if (trak.type !== 'trak') continue;
    const mdia = child(moov, trak, 'mdia');
    const hdlr = child(moov, mdia, 'hdlr');
    if (!hdlr || moov.toString('latin1', hdlr.start + 8, hdlr.start + 12) !== 'soun') continue;
    const mdhd = child(moov, mdia, 'mdhd');
    const stbl = child(moov, child(moov, mdia, 'minf'), 'stbl');
    const [stsd, stts, stsc, stsz] = ['stsd', 'stts', 'stsc', 'stsz'].map((type) => child(moov, stbl, type));
    const stco = child(moov, stbl, 'stco') ?? child(moov, stbl, 'co64');
    if (!mdhd || !stsd || !stts || !stsc || !stsz || !stco || moov.readUInt32BE(stsd.start + 4) !== 1) return null;
    const timescale = moov.readUInt32BE(mdhd.start + (moov[mdhd.start] === 1 ? 20 : 12));
    const count = moov.readUInt32BE(stsz.start + 8);
    if (timescale === 0 || count === 0) return null;

    const sizes = new Uint32Array(count);
    const fixedSize = moov.readUInt32BE(stsz.start + 4);
    for (let i = 0; i < count; i++) sizes[i] = fixedSize || moov.readUInt32BE(stsz.start + 12 + 4 * i);

    const times = new Float64Array(count + 1);
    let sample = 0;
    for (let entry = 0, entries = moov.readUInt32BE(stts.start + 4); entry < entries; entry++) {
      const run = moov.readUInt32BE(stts.start + 8 + 8 * entry);
      const delta = moov.readUInt32BE(stts.start + 12 + 8 * entry);
      for (let k = 0; k < run && sample < count; k++, sample++) times[sample + 1] = times[sample]! + delta;
    }
    if (sample !== count) return null;

    const offsets = new Float64Array(count);
    const wide = stco.type === 'co64';
    const chunkCount = moov.readUInt32BE(stco.start + 4);
    const chunkOffset = (chunk: number) =>
      wide ? Number(moov.readBigUInt64BE(stco.start + 8 + 8 * chunk)) : moov.readUInt32BE(stco.start + 8 + 4 * chunk);
    const stscEntries = moov.readUInt32BE(stsc.start + 4);
    const stscAt = (entry: number, field: number) => moov.readUInt32BE(stsc.start + 8 + 12 * entry + 4 * field);
    sample = 0;
    for (let entry = 0; entry < stscEntries; entry++) {
      const firstChunk = stscAt(entry, 0) - 1;
      const lastChunk = entry + 1 < stscEntries ? stscAt(entry + 1, 0) - 1 : chunkCount;
      const perChunk = stscAt(entry, 1);
      if (stscAt(entry, 2) !== 1) return null;
      for (let chunk = firstChunk; chunk < lastChunk && sample < count; chunk++) {
        let offset = chunkOffset(chunk);
        for (let k = 0; k < perChunk && sample < count; k++, sample++) {
          offsets[sample] = offset;
          offset += sizes[sample]!;
        }
      }
    }
    if (sample !== count) return null;

    return {
      stsd: moov.subarray(stsd.start - 8, stsd.end),
      timescale,
      shiftSeconds: editShift(moov, trak, movieTimescale, timescale),
      times,
      offsets,
      sizes,
    };
  }
  return null;
}

/** Where the edit list puts media time 0: an empty edit delays it, a media time skips a priming delay. */
function editShift(moov: Buffer, trak: Box, movieTimescale: number, timescale: number): number {
  const elst = child(moov, child(moov, trak, 'edts'), 'elst');
  if (!elst) return 0;
  const wide = moov[elst.start] === 1;
  let shift = 0;
  for (let entry = 0, entries = moov.readUInt32BE(elst.start + 4); entry < entries; entry++) {
    const at = elst.start + 8 + entry * (wide ? 20 : 12);
    const duration = wide ? Number(moov.readBigUInt64BE(at)) : moov.readUInt32BE(at);
    const mediaTime = wide ? Number(moov.readBigInt64BE(at + 8)) : moov.readInt32BE(at + 4);
    if (mediaTime !== -1) return shift - mediaTime / timescale;
    if (movieTimescale > 0) shift += duration / movieTimescale;
  }
  return shift;
}

// --- writing a chunk ---

function u32(...values: number[]): Buffer {
  const bytes = Buffer.alloc(4 * values.length);
  for (const [i, value] of values.entries()) bytes.writeUInt32BE(value >>> 0, 4 * i);
  return bytes;
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = u32(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** A full box: version 0 and `flags` before the body. */
const fullBox = (type: string, flags: number, ...parts: Buffer[]) => box(type, u32(flags), ...parts);

const MATRIX = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];

function chunkMoov(table: SampleTable, first: number, stop: number, dataOffset: number): Buffer {
  const { timescale, times } = table;
  const sizes = Buffer.alloc(4 * (stop - first));
  for (let i = first; i < stop; i++) sizes.writeUInt32BE(table.sizes[i]!, 4 * (i - first));
  const duration = times[stop]! - times[first]!;
  const deltas: number[] = [];
  for (let i = first; i < stop; i++) {
    const delta = times[i + 1]! - times[i]!;
    const last = deltas.length - 2;
    if (last >= 0 && deltas[last + 1] === delta) deltas[last] = deltas[last]! + 1;
    else deltas.push(1, delta);
  }
  const stbl = box(
    'stbl',
    table.stsd,
    fullBox('stts', 0, u32(deltas.length / 2, ...deltas)),
    fullBox('stsc', 0, u32(1, 1, stop - first, 1)),
    fullBox('stsz', 0, u32(0, stop - first), sizes),
    fullBox('stco', 0, u32(1, dataOffset)),
  );
  const minf = box('minf', fullBox('smhd', 0, u32(0)), box('dinf', fullBox('dref', 0, u32(1), fullBox('url ', 1))), stbl);
  const hdlr = fullBox('hdlr', 0, u32(0), Buffer.from('soun', 'latin1'), u32(0, 0, 0), Buffer.from('SoundHandler\0', 'latin1'));
  // The language is 'und' (packed ISO 639-2).
  const mdia = box('mdia', fullBox('mdhd', 0, u32(0, 0, timescale, duration, 0x55c40000)), hdlr, minf);
  const tkhd = fullBox('tkhd', 3, u32(0, 0, 1, 0, duration, 0, 0, 0, 0x01000000, ...MATRIX, 0, 0));
  const mvhd = fullBox('mvhd', 0, u32(0, 0, timescale, duration, 0x00010000, 0x01000000, 0, 0, ...MATRIX, 0, 0, 0, 0, 0, 0, 2));
  return box('moov', mvhd, box('trak', tkhd, mdia));
}

const FTYP = box('ftyp', Buffer.from('M4A ', 'latin1'), u32(0), Buffer.from('M4A isommp42', 'latin1'));

/** The last sample whose presentation starts at or before `seconds` (the first when none does). */
function sampleAt(table: SampleTable, seconds: number): number {
  const target = (seconds - table.shiftSeconds) * table.timescale;
  let [low, high] = [0, table.sizes.length - 1];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (table.times[middle]! <= target) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** A splitter reading the sample table itself, or null when mediabunny must read this file. */
export async function openMp4Splitter(sourcePath: string): Promise<AudioSplitter | null> {
  const handle = await open(sourcePath, 'r');
  let table: SampleTable | null;
  try {
    const moov = await readMoov(handle, (await handle.stat()).size);
    table = moov && sampleTable(moov);
  } catch (error) {
    await handle.close();
    throw new AudioSplitError(`the m4a audio cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (!table) {
    await handle.close();
    return null;
  }
  const samples = table;
  const buffer = Buffer.allocUnsafe(IO_BUFFER_BYTES);

  async function cut(start: number, end: number, outPath: string): Promise<WrittenChunk> {
    // From the sample playing at `start` (the very first, a priming one, from 0) to the one playing at `end`.
    const first = start <= 0 ? 0 : sampleAt(samples, start);
    const stop = Number.isFinite(end) ? sampleAt(samples, end) + 1 : samples.sizes.length;
    let bytes = 0;
    for (let i = first; i < stop; i++) bytes += samples.sizes[i]!;
    const moovLength = chunkMoov(samples, first, stop, 0).length;
    const moov = chunkMoov(samples, first, stop, FTYP.length + moovLength + 8);
    const target = await open(outPath, 'w');
    try {
      const mdat = u32(8 + bytes, 0);
      mdat.write('mdat', 4, 'latin1');
      await writeAll(target, Buffer.concat([FTYP, moov, mdat]));
      // Samples next to each other in the source are copied as one run.
      for (let i = first; i < stop; ) {
        const from = samples.offsets[i]!;
        let to = from + samples.sizes[i]!;
        for (i++; i < stop && samples.offsets[i] === to; i++) to += samples.sizes[i]!;
        await copyRange(handle, from, to, target, buffer);
      }
    } finally {
      await target.close();
    }
    const seconds = (time: number) => time / samples.timescale + samples.shiftSeconds;
    return {
      offsetSeconds: seconds(samples.times[first]!),
      durationSeconds: (samples.times[stop]! - samples.times[first]!) / samples.timescale,
    };
  }

  return { cut, close: () => void handle.close() };
}
