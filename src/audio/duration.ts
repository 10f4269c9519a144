// How long an upload or a live part plays, read by this toolkit's own parsers, which bound what a
// crafted file can cost: WAV by arithmetic on its header, MP3 and ADTS by hopping from frame header
// to frame header (the splitter's scan: a few read buffers whatever the length), M4A from the sound
// track's `mdhd` found by walking box headers (the sample table, however large, is never read).
// A general-purpose metadata library reads a crafted m4a's whole sample table into objects (a 72 MB
// file grew the process by 600 MB and froze the event loop for seconds): it is not used here.

import { type FileHandle, open } from 'node:fs/promises';
import { AudioSplitError, FileWindow } from './file-io.ts';
import { type AudioFormat, sniffAudioFormat } from './format.ts';
import { joinedSeconds } from './join.ts';

/** Box headers an m4a may make the walk read before it gives up (a recording has a few dozen). */
export const MAX_MP4_BOXES_WALKED = 4096;
/** How deep the walk goes: moov → trak → mdia → mdhd/hdlr. */
const MP4_PATH = ['moov', 'trak', 'mdia'] as const;

/**
 * The duration in seconds of the audio file at `filePath`, its format read from its first bytes;
 * null when the container cannot be read or holds no measurable audio (a text file named .mp3, a
 * truncated m4a, a WAV without samples).
 */
export async function probeDurationSeconds(filePath: string): Promise<number | null> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(filePath, 'r');
    const size = (await handle.stat()).size;
    const head = Buffer.alloc(Math.min(64, size));
    await handle.read(head, 0, head.length, 0);
    const sniffed = sniffAudioFormat(head);
    if (!sniffed.format) return null;
    const seconds = await secondsOf(sniffed.format, filePath, handle, size);
    return seconds !== null && Number.isFinite(seconds) && seconds > 0 ? seconds : null;
  } catch (error) {
    if (error instanceof AudioSplitError || (error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  } finally {
    await handle?.close();
  }
}

async function secondsOf(format: AudioFormat, filePath: string, handle: FileHandle, size: number): Promise<number | null> {
  // An m4a's sample table is never read here (the join reads it, for files it has already accepted).
  if (format === 'm4a') return mp4TrackSeconds(new FileWindow(handle, size));
  return joinedSeconds(format, filePath);
}

interface BoxHeader {
  type: string;
  /** Where its body starts and where the box ends, in the file. */
  start: number;
  end: number;
}

/** The boxes inside [start, end) of the file, headers only; stops at the first that does not fit. */
async function* boxesIn(window: FileWindow, start: number, end: number, budget: { left: number }): AsyncGenerator<BoxHeader> {
  for (let pos = start; pos + 8 <= end; ) {
    if (--budget.left < 0) throw new AudioSplitError(`the m4a audio has more than ${MAX_MP4_BOXES_WALKED} boxes on the way to its track`);
    let at = await window.at(pos, 8);
    if (at < 0) return;
    let size = window.bytes.readUInt32BE(at);
    let header = 8;
    if (size === 1) {
      at = await window.at(pos, 16);
      if (at < 0) return;
      size = Number(window.bytes.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = end - pos;
    if (size < header || pos + size > end) return;
    yield { type: window.bytes.toString('latin1', at + 4, at + 8), start: pos + header, end: pos + size };
    pos += size;
  }
}

/** The first sound track's duration (`mdhd` duration over its timescale), or null when there is none. */
async function mp4TrackSeconds(window: FileWindow): Promise<number | null> {
  const budget = { left: MAX_MP4_BOXES_WALKED };
  const walk = async (level: number, start: number, end: number): Promise<number | null> => {
    const wanted = MP4_PATH[level];
    let mdhd: BoxHeader | undefined;
    let sound = false;
    for await (const box of boxesIn(window, start, end, budget)) {
      if (wanted && box.type === wanted) {
        const seconds = await walk(level + 1, box.start, box.end);
        if (seconds !== null) return seconds;
      } else if (!wanted && box.type === 'mdhd') mdhd = box;
      else if (!wanted && box.type === 'hdlr') {
        // Version and flags (4), pre_defined (4), then the handler type.
        const at = await window.at(box.start + 8, 4);
        sound = at >= 0 && window.bytes.toString('latin1', at, at + 4) === 'soun';
      }
    }
    return wanted || !sound || !mdhd ? null : mdhdSeconds(window, mdhd);
  };
  return walk(0, 0, window.size);
}

async function mdhdSeconds(window: FileWindow, mdhd: BoxHeader): Promise<number | null> {
  const at = await window.at(mdhd.start, Math.min(32, mdhd.end - mdhd.start));
  if (at < 0) return null;
  const bytes = window.bytes;
  const version = bytes[at]!;
  // Version 1: 64-bit creation and modification times and duration; version 0: 32-bit.
  const [timescale, duration] =
    version === 1 && mdhd.end - mdhd.start >= 32
      ? [bytes.readUInt32BE(at + 20), Number(bytes.readBigUInt64BE(at + 24))]
      : version === 0 && mdhd.end - mdhd.start >= 20
        ? [bytes.readUInt32BE(at + 12), bytes.readUInt32BE(at + 16)]
        : [0, 0];
  // An unknown duration (all ones) or a zero timescale measures nothing.
  if (timescale === 0 || duration === 0 || duration === 0xffffffff) return null;
  return duration / timescale;
}
