// MP3 and ADTS (raw AAC) chunks in one streaming pass over frame headers. Both formats are a run
// of self-delimiting frames (a header says the frame's length and how many samples it plays), so
// the frames of a time range are found by hopping from header to header and copied as one byte
// range; nothing is decoded. The pass keeps only a checkpoint every few hundred frames (so the next
// cut starts near its range instead of at the file's start): memory is a few read buffers, whatever
// the file's length. mediabunny's MP3 and ADTS readers index every frame of the file instead (an
// object per frame, ~100 000 for an hour of 16 kHz MP3), which is what this replaces.

import { type FileHandle, open } from 'node:fs/promises';
import { AudioSplitError, type AudioSplitter, copyRange, FileWindow, IO_BUFFER_BYTES, type WrittenChunk, writeAll } from './file-io.ts';

export interface FrameHeader {
  /** Bytes of the whole frame, header included. */
  length: number;
  /** Samples the frame plays, per channel. */
  samples: number;
  sampleRate: number;
}

interface FrameSyntax {
  name: string;
  /** Bytes needed to read a header. */
  headerBytes: number;
  /** The frame whose header starts at `bytes[at]`, or null when none does. */
  parse(bytes: Buffer, at: number): FrameHeader | null;
  /** Whether two headers belong to one stream (to tell a real resynchronisation from noise). */
  sameStream(a: Buffer, aAt: number, b: Buffer, bAt: number): boolean;
}

// --- MPEG audio (MP3) ---

// Kilobits per second by bitrate index; [MPEG-1 layer I, II, III, MPEG-2/2.5 layer I, II and III].
const MPEG1_KBPS = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
];
const MPEG2_KBPS = [
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
const MPEG_RATES = [44100, 48000, 32000];

/** The header fields of an MPEG audio frame, or null when the 4 bytes are not one. */
function mpegFields(bytes: Buffer, at: number) {
  const [b0, b1, b2] = [bytes[at]!, bytes[at + 1]!, bytes[at + 2]!];
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return null;
  const version = (b1 >> 3) & 3; // 0 MPEG-2.5, 1 reserved, 2 MPEG-2, 3 MPEG-1
  const layer = 4 - ((b1 >> 1) & 3); // the bits say 3 for layer I ... 1 for layer III; 0 is reserved
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (version === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const mpeg1 = version === 3;
  const kbps = mpeg1 ? MPEG1_KBPS[layer - 1]![bitrateIndex]! : MPEG2_KBPS[Math.min(layer, 2) - 1]![bitrateIndex]!;
  const sampleRate = MPEG_RATES[rateIndex]! >> (mpeg1 ? 0 : version === 2 ? 1 : 2);
  const padding = (b2 >> 1) & 1;
  const samples = layer === 1 ? 384 : layer === 3 && !mpeg1 ? 576 : 1152;
  const length =
    layer === 1
      ? (Math.floor((12 * kbps * 1000) / sampleRate) + padding) * 4
      : Math.floor(((samples / 8) * kbps * 1000) / sampleRate) + padding;
  const mono = bytes[at + 3]! >> 6 === 3;
  return { version, layer, mpeg1, mono, bitrateIndex, sampleRate, samples, length };
}

/** Where a layer III frame's Xing/Info/VBRI tag would start: after the header and side information. */
const vbrTagOffset = (fields: { mpeg1: boolean; mono: boolean }) => 4 + (fields.mpeg1 ? (fields.mono ? 17 : 32) : fields.mono ? 9 : 17);

const MP3: FrameSyntax = {
  name: 'mp3',
  headerBytes: 4,
  parse(bytes, at) {
    const fields = mpegFields(bytes, at);
    return fields && { length: fields.length, samples: fields.samples, sampleRate: fields.sampleRate };
  },
  // Version, layer and sampling rate do not change inside a stream.
  sameStream: (a, aAt, b, bAt) => (a[aAt + 1]! & 0xfe) === (b[bAt + 1]! & 0xfe) && (a[aAt + 2]! & 0x0c) === (b[bAt + 2]! & 0x0c),
};

/**
 * A Xing frame for a layer III chunk: the first frame of a VBR file that tells a reader how many
 * frames and bytes follow (without it, a server estimates a VBR file's duration from its first
 * frame's bitrate, and may refuse a chunk as too long). It plays no audio.
 */
export function xingFrame(firstHeader: Buffer, frames: number, audioBytes: number): Buffer | null {
  const fields = mpegFields(firstHeader, 0);
  if (fields?.layer !== 3) return null;
  const tagAt = vbrTagOffset(fields);
  // The smallest frame, at or above the stream's first bitrate, that holds the tag, flags, frames and bytes.
  for (let index = fields.bitrateIndex; index < 15; index++) {
    const header = Buffer.from([0xff, firstHeader[1]! | 1, (index << 4) | (firstHeader[2]! & 0x0c), firstHeader[3]!]);
    const sized = mpegFields(header, 0)!;
    if (sized.length < tagAt + 16) continue;
    const frame = Buffer.alloc(sized.length);
    header.copy(frame);
    frame.write('Xing', tagAt, 'latin1');
    frame.writeUInt32BE(0x3, tagAt + 4); // frames and bytes present
    frame.writeUInt32BE(frames, tagAt + 8);
    frame.writeUInt32BE(sized.length + audioBytes, tagAt + 12);
    return frame;
  }
  return null;
}

// --- ADTS (AAC) ---

const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

const ADTS: FrameSyntax = {
  name: 'aac',
  headerBytes: 7,
  parse(bytes, at) {
    if (bytes[at] !== 0xff || (bytes[at + 1]! & 0xf6) !== 0xf0) return null;
    const sampleRate = ADTS_RATES[(bytes[at + 2]! >> 2) & 0xf];
    const length = ((bytes[at + 3]! & 3) << 11) | (bytes[at + 4]! << 3) | (bytes[at + 5]! >> 5);
    const headerLength = bytes[at + 1]! & 1 ? 7 : 9;
    if (!sampleRate || length <= headerLength) return null;
    return { length, samples: ((bytes[at + 6]! & 3) + 1) * 1024, sampleRate };
  },
  // Profile, sampling rate and channels do not change inside a stream.
  sameStream: (a, aAt, b, bAt) => (a[aAt + 2]! & 0xfd) === (b[bAt + 2]! & 0xfd) && (a[aAt + 3]! & 0xc0) === (b[bAt + 3]! & 0xc0),
};

// --- the scan ---

interface Position {
  /** Byte offset of a frame header. */
  pos: number;
  /** Samples played before it (at the stream's first sampling rate: exact, no rounding drifts). */
  samples: number;
  /** Audio frames before it. */
  frame: number;
}

/** A checkpoint every this many frames (~20 s of 16 kHz MP3): a few hundred small objects per hour. */
const CHECKPOINT_FRAMES = 512;

class FrameScanner {
  readonly window: FileWindow;
  readonly syntax: FrameSyntax;
  /** Samples per second of the stream's first frame: the unit of every Position's `samples`. */
  readonly rate: number;
  /** Positions of every CHECKPOINT_FRAMES-th frame scanned so far, in file order. */
  private readonly checkpoints: Position[];

  constructor(handle: FileHandle, size: number, syntax: FrameSyntax, first: Position, rate: number) {
    this.window = new FileWindow(handle, size);
    this.syntax = syntax;
    this.rate = rate;
    this.checkpoints = [first];
  }

  /** The header at `pos`, or after the noise that follows it (junk, a tag, a damaged frame); null at the end. */
  async frameFrom(pos: number): Promise<{ pos: number; header: FrameHeader } | null> {
    const { syntax, window } = this;
    for (let at = pos; ; at++) {
      const offset = await window.at(at, syntax.headerBytes);
      if (offset < 0) return null;
      const header = syntax.parse(window.bytes, offset);
      if (!header || at + header.length > window.size) continue;
      // Right where a frame is expected, a header is trusted; after noise, the next one must agree.
      if (at === pos || (await this.followedByFrame(at, header))) return { pos: at, header };
    }
  }

  private async followedByFrame(at: number, header: FrameHeader): Promise<boolean> {
    const { syntax, window } = this;
    if (at + header.length === window.size) return true;
    // One window holds both headers (a frame has at most 8 KB): a scan through noise, a candidate
    // header at every byte, reads the file once instead of twice per byte.
    const offset = await window.at(at, header.length + syntax.headerBytes);
    if (offset < 0) return false;
    const next = offset + header.length;
    return syntax.parse(window.bytes, next) !== null && syntax.sameStream(window.bytes, offset, window.bytes, next);
  }

  /**
   * The frames playing from `start` to `end` seconds: the one playing at `start` (the first when
   * `start` ≤ 0), through the one playing at `end`, both included.
   */
  async range(start: number, end: number) {
    const { rate } = this;
    let at: Position = this.checkpoints.findLast((checkpoint) => checkpoint.samples / rate <= start) ?? this.checkpoints[0]!;
    let first: Position | null = null;
    let stop = at.pos;
    for (;;) {
      const found = await this.frameFrom(at.pos);
      if (!found) break;
      const current = { pos: found.pos, samples: at.samples, frame: at.frame };
      if (current.frame % CHECKPOINT_FRAMES === 0 && current.frame > this.checkpoints.at(-1)!.frame) this.checkpoints.push(current);
      if (current.samples / rate > end) break;
      const endSamples = current.samples + (found.header.samples * rate) / found.header.sampleRate;
      if (!first && endSamples / rate > start) first = current;
      stop = found.pos + found.header.length;
      at = { pos: stop, samples: endSamples, frame: current.frame + 1 };
    }
    if (!first) throw new AudioSplitError(`the ${this.syntax.name} audio has no frames at ${start} s`);
    return { first: first.pos, stop, offsetSeconds: first.samples / rate, endSeconds: at.samples / rate, frames: at.frame - first.frame };
  }
}

/** Bytes of the ID3v2 tags at `pos` (0 when there is none); MP3 and ADTS files may start with them. */
async function id3Bytes(window: FileWindow, pos: number): Promise<number> {
  let skipped = 0;
  for (;;) {
    const offset = await window.at(pos + skipped, 10);
    if (offset < 0 || window.bytes.toString('latin1', offset, offset + 3) !== 'ID3') return skipped;
    const b = window.bytes;
    const size =
      ((b[offset + 6]! & 0x7f) << 21) | ((b[offset + 7]! & 0x7f) << 14) | ((b[offset + 8]! & 0x7f) << 7) | (b[offset + 9]! & 0x7f);
    skipped += 10 + size + (b[offset + 5]! & 0x10 ? 10 : 0);
  }
}

/** An open MP3 or ADTS file whose frames can be found by time (the splitter's and the joiner's). */
export interface FrameSource {
  handle: FileHandle;
  /** The byte range [first, stop) of the frames playing from `start` to `end` seconds, and their times. */
  range(start: number, end: number): Promise<{ first: number; stop: number; offsetSeconds: number; endSeconds: number; frames: number }>;
}

export async function openFrameSource(sourcePath: string, format: 'mp3' | 'aac'): Promise<FrameSource> {
  const syntax = format === 'mp3' ? MP3 : ADTS;
  const handle = await open(sourcePath, 'r');
  const size = (await handle.stat()).size;
  let scanner: FrameScanner;
  try {
    const probe = new FrameScanner(handle, size, syntax, { pos: 0, samples: 0, frame: 0 }, 1);
    const found = await probe.frameFrom(await id3Bytes(probe.window, 0));
    if (!found) throw new AudioSplitError(`the ${format} audio has no ${format === 'mp3' ? 'MPEG audio' : 'ADTS'} frames`);
    let pos = found.pos;
    // A Xing/Info/VBRI frame at the start describes the file and plays nothing: not audio.
    const fields = format === 'mp3' ? mpegFields(probe.window.bytes, await probe.window.at(pos, 4)) : null;
    if (fields?.layer === 3) {
      const tagAt = vbrTagOffset(fields);
      const offset = await probe.window.at(pos, Math.max(tagAt, 36) + 4);
      const tag = (at: number) => (offset < 0 ? '' : probe.window.bytes.toString('latin1', offset + at, offset + at + 4));
      if (['Xing', 'Info'].includes(tag(tagAt)) || tag(36) === 'VBRI') pos += found.header.length;
    }
    scanner = new FrameScanner(handle, size, syntax, { pos, samples: 0, frame: 0 }, found.header.sampleRate);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return { handle, range: (start, end) => scanner.range(start, end) };
}

export async function openFrameSplitter(sourcePath: string, format: 'mp3' | 'aac'): Promise<AudioSplitter> {
  const { handle, range } = await openFrameSource(sourcePath, format);
  const buffer = Buffer.allocUnsafe(IO_BUFFER_BYTES);

  async function cut(start: number, end: number, outPath: string): Promise<WrittenChunk> {
    const { first, stop, offsetSeconds, endSeconds, frames } = await range(start, end);
    const target = await open(outPath, 'w');
    try {
      if (format === 'mp3') {
        const header = Buffer.alloc(4);
        await handle.read(header, 0, 4, first);
        const xing = xingFrame(header, frames, stop - first);
        if (xing) await writeAll(target, xing);
      }
      await copyRange(handle, first, stop, target, buffer);
    } finally {
      await target.close();
    }
    return { offsetSeconds, durationSeconds: endSeconds - offsetSeconds };
  }

  return { cut, close: () => void handle.close() };
}
