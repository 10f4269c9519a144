// Time ranges of several files of one format joined into one file of that format, without
// re-encoding: the same packet copies as the splitter's (wav.ts, frames.ts, mp4.ts), written one
// file after another under one header. Used where audio arrives in parts (notes/live/): a part is
// sent with the end of the part before it (the overlap that keeps a word cut at the boundary
// whole), and a completed live note's parts become one recording. Files whose streams differ
// (another sample rate, channel count or codec configuration) cannot be joined this way:
// AudioJoinMismatch says so, and the caller does without.

import { type FileHandle, open } from 'node:fs/promises';
import { AudioSplitError, copyRange, FileWindow, IO_BUFFER_BYTES, writeAll } from './file-io.ts';
import type { AudioFormat } from './format.ts';
import { type FrameSource, openFrameSource, xingFrame } from './frames.ts';
import { FTYP, readMoov, sampleAt, samplesMoov } from './mp4.ts';
import { u32 } from './mp4-boxes.ts';
import { readSampleTable, type SampleTable } from './mp4-table.ts';
import { readLayout, wavHeader } from './wav.ts';

/** A range of one file: seconds from its start; `end` may be Infinity. */
export interface JoinPiece {
  path: string;
  start: number;
  end: number;
}

/** What of a piece went into the joined file: where its first packet sits in its own file, and for how long it plays. */
export interface JoinedPiece {
  offsetSeconds: number;
  durationSeconds: number;
}

/** The pieces' streams differ: they cannot be joined without re-encoding. */
export class AudioJoinMismatch extends AudioSplitError {
  override name = 'AudioJoinMismatch';
}

export async function joinAudio(format: AudioFormat, pieces: JoinPiece[], outPath: string): Promise<JoinedPiece[]> {
  if (pieces.length === 0) throw new AudioSplitError('nothing to join');
  switch (format) {
    case 'wav':
      return joinWav(pieces, outPath);
    case 'mp3':
    case 'aac':
      return joinFrames(format, pieces, outPath);
    case 'm4a':
      return joinMp4(pieces, outPath);
  }
}

async function withHandles<T>(pieces: JoinPiece[], use: (handles: FileHandle[]) => Promise<T>): Promise<T> {
  const handles: FileHandle[] = [];
  try {
    for (const piece of pieces) handles.push(await open(piece.path, 'r'));
    return await use(handles);
  } finally {
    for (const handle of handles) await handle.close();
  }
}

async function joinWav(pieces: JoinPiece[], outPath: string): Promise<JoinedPiece[]> {
  return withHandles(pieces, async (handles) => {
    const layouts = await Promise.all(handles.map(async (handle) => readLayout(handle, (await handle.stat()).size)));
    const fmt = layouts[0]!.fmtChunk;
    if (layouts.some((layout) => !layout.fmtChunk.equals(fmt))) throw new AudioJoinMismatch('the wav parts differ in sample format');
    const ranges = layouts.map((layout, i) => {
      const blocks = Math.floor(layout.dataBytes / layout.blockAlign);
      const at = (seconds: number) => Math.min(blocks, Math.max(0, Math.floor((seconds * layout.byteRate) / layout.blockAlign)));
      const first = at(pieces[i]!.start);
      const stop = Number.isFinite(pieces[i]!.end) ? Math.max(first, at(pieces[i]!.end) + 1) : blocks;
      const from = layout.dataStart + first * layout.blockAlign;
      return {
        from,
        to: layout.dataStart + Math.min(stop, blocks) * layout.blockAlign,
        offset: (first * layout.blockAlign) / layout.byteRate,
      };
    });
    const bytes = ranges.reduce((sum, range) => sum + range.to - range.from, 0);
    const header = wavHeader(fmt, bytes);
    const target = await open(outPath, 'w');
    const buffer = Buffer.allocUnsafe(IO_BUFFER_BYTES);
    try {
      await writeAll(target, header);
      for (const [i, range] of ranges.entries()) await copyRange(handles[i]!, range.from, range.to, target, buffer);
      if (bytes % 2) await writeAll(target, Buffer.alloc(1));
    } finally {
      await target.close();
    }
    const byteRate = layouts[0]!.byteRate;
    return ranges.map((range) => ({ offsetSeconds: range.offset, durationSeconds: (range.to - range.from) / byteRate }));
  });
}

async function joinFrames(format: 'mp3' | 'aac', pieces: JoinPiece[], outPath: string): Promise<JoinedPiece[]> {
  const sources: FrameSource[] = [];
  try {
    for (const piece of pieces) sources.push(await openFrameSource(piece.path, format));
    const ranges = [];
    const heads: Buffer[] = [];
    for (const [i, source] of sources.entries()) {
      const range = await source.range(pieces[i]!.start, pieces[i]!.end);
      const head = Buffer.alloc(7);
      await source.handle.read(head, 0, 7, range.first);
      ranges.push(range);
      heads.push(head);
    }
    // Version, layer and rate (MP3), or profile, rate and channels (ADTS) must not change mid-stream.
    const key = (head: Buffer) => (format === 'mp3' ? [head[1]! & 0xfe, head[2]! & 0x0c] : [head[2]! & 0xfd, head[3]! & 0xc0]).join();
    if (heads.some((head) => key(head) !== key(heads[0]!))) throw new AudioJoinMismatch(`the ${format} parts differ in stream parameters`);
    const target = await open(outPath, 'w');
    const buffer = Buffer.allocUnsafe(IO_BUFFER_BYTES);
    try {
      if (format === 'mp3') {
        const frames = ranges.reduce((sum, range) => sum + range.frames, 0);
        const bytes = ranges.reduce((sum, range) => sum + range.stop - range.first, 0);
        const xing = xingFrame(heads[0]!, frames, bytes);
        if (xing) await writeAll(target, xing);
      }
      for (const [i, range] of ranges.entries()) await copyRange(sources[i]!.handle, range.first, range.stop, target, buffer);
    } finally {
      await target.close();
    }
    return ranges.map((range) => ({ offsetSeconds: range.offsetSeconds, durationSeconds: range.endSeconds - range.offsetSeconds }));
  } finally {
    for (const source of sources) await source.handle.close();
  }
}

async function joinMp4(pieces: JoinPiece[], outPath: string): Promise<JoinedPiece[]> {
  return withHandles(pieces, async (handles) => {
    const tables: SampleTable[] = [];
    for (const handle of handles) {
      const window = new FileWindow(handle, (await handle.stat()).size);
      const table = readSampleTable(await readMoov(window), window.size);
      // Layouts the sample-table reader leaves to mediabunny (fragmented, ...) are not joined.
      if (!table) throw new AudioJoinMismatch('an m4a part has a layout this service does not join');
      tables.push(table);
    }
    const first = tables[0]!;
    const config = codecConfiguration(first.stsd);
    if (tables.some((table) => table.timescale !== first.timescale || !codecConfiguration(table.stsd).equals(config))) {
      throw new AudioJoinMismatch('the m4a parts differ in codec configuration');
    }
    // Seconds from each file's first sample, its edit list aside (an encoder's segments may say they
    // start at their place in the whole stream): the time line joinedSeconds measures.
    const at = (table: SampleTable, seconds: number) => sampleAt({ ...table, shiftSeconds: table.times[0]! / table.timescale }, seconds);
    const runs = tables.map((table, i) => {
      const { start, end } = pieces[i]!;
      const from = start <= 0 ? 0 : at(table, start);
      return { table, first: from, stop: Number.isFinite(end) ? Math.max(from + 1, at(table, end) + 1) : table.sizes.length };
    });
    let bytes = 0;
    for (const run of runs) for (let i = run.first; i < run.stop; i++) bytes += run.table.sizes[i]!;
    const moovLength = samplesMoov(first, runs, 0).length;
    const moov = samplesMoov(first, runs, FTYP.length + moovLength + 8);
    const target = await open(outPath, 'w');
    const buffer = Buffer.allocUnsafe(IO_BUFFER_BYTES);
    try {
      const mdat = u32(8 + bytes, 0);
      mdat.write('mdat', 4, 'latin1');
      await writeAll(target, Buffer.concat([FTYP, moov, mdat]));
      for (const [n, run] of runs.entries()) {
        for (let i = run.first; i < run.stop; ) {
          const from = run.table.offsets[i]!;
          let to = from + run.table.sizes[i]!;
          for (i++; i < run.stop && run.table.offsets[i] === to; i++) to += run.table.sizes[i]!;
          await copyRange(handles[n]!, from, to, target, buffer);
        }
      }
    } finally {
      await target.close();
    }
    return runs.map(({ table, first: from, stop }) => ({
      offsetSeconds: (table.times[from]! - table.times[0]!) / table.timescale,
      durationSeconds: (table.times[stop]! - table.times[from]!) / table.timescale,
    }));
  });
}

/**
 * A sample description without what differs between files of one encoder's stream: the bitrates
 * of `esds` (its DecoderConfigDescriptor's buffer size, maximum and average) and of `btrt`. What is
 * left (codec, rate, channels, decoder-specific configuration) must be equal for two files to join.
 */
function codecConfiguration(stsd: Buffer): Buffer {
  const copy = Buffer.from(stsd);
  const btrt = copy.indexOf('btrt', 0, 'latin1');
  if (btrt >= 0) copy.fill(0, btrt + 4, Math.min(copy.length, btrt + 16));
  const esds = copy.indexOf('esds', 0, 'latin1');
  if (esds < 0) return copy;
  let pos = esds + 8; // type, version and flags
  const length = () => {
    for (let i = 0; i < 4 && copy[pos++]! & 0x80; i++);
  };
  if (copy[pos++] !== 0x03) return copy;
  length();
  pos += 2;
  const flags = copy[pos++] ?? 0;
  if (flags & 0x80) pos += 2;
  if (flags & 0x40) pos += 1 + (copy[pos] ?? 0);
  if (flags & 0x20) pos += 2;
  if (copy[pos++] !== 0x04) return copy;
  length();
  // After the object and stream types: bufferSizeDB (3 bytes), maxBitrate and avgBitrate (4 each).
  copy.fill(0, pos + 2, Math.min(copy.length, pos + 13));
  return copy;
}

/**
 * How long a file plays when joined: every packet it holds (an m4a's priming samples included,
 * which its edit list would hide), so that files placed one after another by these durations sit
 * where joinAudio puts them. Null for a layout joinAudio does not read.
 */
export async function joinedSeconds(format: AudioFormat, filePath: string): Promise<number | null> {
  if (format === 'mp3' || format === 'aac') {
    const source = await openFrameSource(filePath, format);
    try {
      const range = await source.range(0, Number.POSITIVE_INFINITY);
      return range.endSeconds - range.offsetSeconds;
    } finally {
      await source.handle.close();
    }
  }
  return withHandles([{ path: filePath, start: 0, end: 0 }], async ([handle]) => {
    const size = (await handle!.stat()).size;
    if (format === 'wav') {
      const layout = await readLayout(handle!, size);
      return Math.floor(layout.dataBytes / layout.blockAlign) * (layout.blockAlign / layout.byteRate);
    }
    const table = readSampleTable(await readMoov(new FileWindow(handle!, size)), size);
    return table ? (table.times[table.sizes.length]! - table.times[0]!) / table.timescale : null;
  });
}
