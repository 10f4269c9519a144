// M4A (MP4 audio) chunks from the sample table: the `moov` box lists every sample's size, duration
// and place in the file, so a time range is a run of samples whose bytes are copied into a new
// file with its own small `moov` (the source's sample description copied as is: no re-encoding).
// Memory is the source's sample table as typed arrays (a few bytes per sample: ~1 MB for an hour
// of AAC, read and checked in mp4-table.ts) and one copy buffer. Layouts this does not read
// (fragmented MP4, compact sample sizes, several sample descriptions) answer null once
// mp4-fallback.ts has checked them, and the caller falls back to mediabunny.

import { open } from 'node:fs/promises';
import { AudioSplitError, type AudioSplitter, copyRange, FileWindow, IO_BUFFER_BYTES, type WrittenChunk, writeAll } from './file-io.ts';
import { box, fullBox, readBox, topLevelBoxes, u32, unreadableMp4 } from './mp4-boxes.ts';
import { checkFallbackLayout } from './mp4-fallback.ts';
import { readSampleTable, type SampleTable } from './mp4-table.ts';

/** The top-level `moov`, found by hopping over box headers (it may come after a large `mdat`). */
export async function readMoov(window: FileWindow): Promise<Buffer> {
  for await (const box of topLevelBoxes(window)) if (box.type === 'moov') return readBox(window, box);
  throw unreadableMp4('it has no moov box (or a box before it runs past the end of the file)');
}

// --- writing a chunk ---

const MATRIX = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];

function chunkMoov(table: SampleTable, first: number, stop: number, dataOffset: number): Buffer {
  return samplesMoov(table, [{ table, first, stop }], dataOffset);
}

/**
 * A `moov` for the samples [first, stop) of each run in turn (runs of tables with the same sample
 * description and timescale: one file's, or several files' joined), stored one after another from
 * `dataOffset`.
 */
export function samplesMoov(
  description: Pick<SampleTable, 'stsd' | 'timescale'>,
  runs: { table: SampleTable; first: number; stop: number }[],
  dataOffset: number,
): Buffer {
  const { timescale } = description;
  const count = runs.reduce((sum, run) => sum + run.stop - run.first, 0);
  const sizes = Buffer.alloc(4 * count);
  // The time-to-sample entries (count, delta), written straight into the box's body: samples of
  // alternating durations make one entry each, millions of them, which no argument list can hold.
  const deltas = Buffer.alloc(8 * count);
  let entries = 0;
  let duration = 0;
  let n = 0;
  for (const { table, first, stop } of runs) {
    duration += table.times[stop]! - table.times[first]!;
    for (let i = first; i < stop; i++) {
      sizes.writeUInt32BE(table.sizes[i]!, 4 * n++);
      const delta = table.times[i + 1]! - table.times[i]!;
      if (entries > 0 && deltas.readUInt32BE(8 * entries - 4) === delta) {
        deltas.writeUInt32BE(deltas.readUInt32BE(8 * entries - 8) + 1, 8 * entries - 8);
      } else {
        deltas.writeUInt32BE(1, 8 * entries);
        deltas.writeUInt32BE(delta >>> 0, 8 * entries + 4);
        entries++;
      }
    }
  }
  const stbl = box(
    'stbl',
    description.stsd,
    fullBox('stts', 0, u32(entries), deltas.subarray(0, 8 * entries)),
    fullBox('stsc', 0, u32(1, 1, count, 1)),
    fullBox('stsz', 0, u32(0, count), sizes),
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

export const FTYP = box('ftyp', Buffer.from('M4A ', 'latin1'), u32(0), Buffer.from('M4A isommp42', 'latin1'));

/** The last sample whose presentation starts at or before `seconds` (the first when none does). */
export function sampleAt(table: SampleTable, seconds: number): number {
  const target = (seconds - table.shiftSeconds) * table.timescale;
  let [low, high] = [0, table.sizes.length - 1];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (table.times[middle]! <= target) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** A splitter reading the sample table itself, or null when mediabunny must read this (checked) file. */
export async function openMp4Splitter(sourcePath: string): Promise<AudioSplitter | null> {
  const handle = await open(sourcePath, 'r');
  let table: SampleTable | null;
  try {
    const window = new FileWindow(handle, (await handle.stat()).size);
    const moov = await readMoov(window);
    table = readSampleTable(moov, window.size);
    if (!table) await checkFallbackLayout(window, moov);
  } catch (error) {
    await handle.close();
    if (error instanceof AudioSplitError) throw error;
    throw new AudioSplitError(`the m4a audio cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (!table) {
    await handle.close();
    return null;
  }
  const samples = table;
  const buffer = Buffer.allocUnsafe(IO_BUFFER_BYTES);
  // Time 0 is the first sample's, an edit list that places it later aside: a segment cut from a
  // longer encoding may say it starts at 8:00 (where it was), but its audio starts at 0 here, as
  // its duration and its transcript's times do. An edit that starts it earlier (a priming packet,
  // < 0) is kept: chunk 0 starts with that packet.
  const origin = Math.max(0, samples.times[0]! / samples.timescale + samples.shiftSeconds);
  const seconds = (time: number) => time / samples.timescale + samples.shiftSeconds - origin;
  const sampleAtSecond = (at: number) => sampleAt(samples, at + origin);

  async function cut(start: number, end: number, outPath: string): Promise<WrittenChunk> {
    // From the sample playing at `start` (the very first, a priming one, from 0) to the one playing at `end`.
    // A header that says more time than the samples hold (mdhd against stts) leaves later chunks empty.
    if (start > 0 && start >= seconds(samples.times[samples.sizes.length]!)) {
      throw new AudioSplitError(
        `the m4a audio has no samples at ${start} s (its samples end at ${seconds(samples.times[samples.sizes.length]!).toFixed(1)} s)`,
      );
    }
    const first = start <= 0 ? 0 : sampleAtSecond(start);
    const stop = Number.isFinite(end) ? sampleAtSecond(end) + 1 : samples.sizes.length;
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
    return {
      offsetSeconds: seconds(samples.times[first]!),
      durationSeconds: (samples.times[stop]! - samples.times[first]!) / samples.timescale,
    };
  }

  return { cut, close: () => void handle.close() };
}
