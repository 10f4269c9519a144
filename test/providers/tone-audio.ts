// Test audio that says where it is: second k of the audio carries the number k as tones, so a fake
// transcription server can tell exactly which seconds a chunk holds after any cut or codec.
//
// Each second: 100 ms of 500 Hz (the sync), then 12 bits of 70 ms each (50 ms of 1500 Hz for a 1,
// silence for a 0, then 20 ms of silence), then silence. Decoding needs only energy and zero
// crossings per 10 ms frame, so it runs in linear time over an hour of audio.

import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export const SAMPLE_RATE = 16_000;
const FRAME = SAMPLE_RATE / 100; // 10 ms
const AMPLITUDE = 0.5 * 32767;
const BITS = 12;

/** The PCM (s16le mono) of seconds [from, to), generated one second at a time. */
function* toneSeconds(from: number, to: number): Generator<Buffer> {
  for (let k = from; k < to; k++) {
    const second = Buffer.alloc(SAMPLE_RATE * 2);
    const tone = (startMs: number, endMs: number, hz: number) => {
      const first = (startMs * SAMPLE_RATE) / 1000;
      const last = (endMs * SAMPLE_RATE) / 1000;
      for (let i = first; i < last; i++) {
        // A 2 ms fade at each end keeps codecs from ringing into the silences.
        const fade = Math.min(1, (i - first) / 32, (last - 1 - i) / 32);
        second.writeInt16LE(Math.round(AMPLITUDE * fade * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE)), i * 2);
      }
    };
    tone(0, 100, 500);
    for (let bit = 0; bit < BITS; bit++) if ((k >> (BITS - 1 - bit)) & 1) tone(100 + 70 * bit, 150 + 70 * bit, 1500);
    yield second;
  }
}

function wavHeader(dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

export type ToneFormat = 'wav' | 'mp3' | 'm4a' | 'aac';

const ENCODERS: Record<Exclude<ToneFormat, 'wav'>, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k'],
  m4a: ['-c:a', 'aac', '-b:a', '64k', '-movflags', '+faststart'],
  aac: ['-c:a', 'aac', '-b:a', '64k', '-f', 'adts'],
};

/**
 * A `seconds`-long tone file in `format`, made once per machine under the OS temp directory (the
 * long ones take a while to encode) and reused by every test file and run after that.
 */
export async function toneFile(format: ToneFormat, seconds: number): Promise<string> {
  const dir = path.join(tmpdir(), 'vetflow-tone-audio-v1');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `tones-${seconds}s.${format}`);
  if (existsSync(file)) return file;
  // The extension stays last: ffmpeg picks the container from it.
  const partial = path.join(dir, `partial-${process.pid}-${seconds}s.${format}`);
  if (format === 'wav') {
    await pipeline(
      (function* () {
        yield wavHeader(seconds * SAMPLE_RATE * 2);
        yield* toneSeconds(0, seconds);
      })(),
      createWriteStream(partial),
    );
  } else {
    const ffmpeg = spawn('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 's16le', '-ar', String(SAMPLE_RATE), '-ac', '1', '-i', 'pipe:0'],
      ...ENCODERS[format],
      partial,
    ]);
    const exited = new Promise<number | null>((resolve, reject) => {
      ffmpeg.on('error', reject);
      ffmpeg.on('close', resolve);
    });
    await pipeline(toneSeconds(0, seconds), ffmpeg.stdin);
    const code = await exited;
    if (code !== 0) throw new Error(`ffmpeg could not encode ${format} (exit ${code})`);
  }
  renameSync(partial, file);
  return file;
}

export interface HeardSecond {
  /** The second of the whole audio this word encodes. */
  second: number;
  /** Where it starts in the audio that was decoded, in seconds. */
  start: number;
  end: number;
  /** Only part of this second's tones is in the audio (cut by its start or end): completed from its neighbours. */
  cut?: boolean;
}

export interface HearOptions {
  /**
   * Report a word cut by the start or the end of the audio too, as a speech model does: it hears a
   * half word and completes it from the words around it (Whisper writes the whole word, timed where
   * its half is). The tones cannot say which second a fragment is, so it is named after its
   * neighbour: the second before the first whole word, the one after the last. Without this, only
   * whole words are heard (a fragment is no word).
   */
  cutWords?: boolean;
}

/**
 * Decodes an audio file to 16 kHz mono PCM with ffmpeg and reads the seconds it holds. A file, not
 * a pipe: an MP4 whose index comes last cannot be read from a pipe (servers keep uploads in files).
 */
export async function hearSeconds(file: string, options: HearOptions = {}): Promise<{ heard: HeardSecond[]; durationSeconds: number }> {
  const ffmpeg = spawn('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-i',
    file,
    '-f',
    's16le',
    '-ac',
    '1',
    '-ar',
    String(SAMPLE_RATE),
    'pipe:1',
  ]);
  const reader = new FrameReader();
  const exited = new Promise<number | null>((resolve, reject) => {
    ffmpeg.on('error', reject);
    ffmpeg.on('close', resolve);
  });
  ffmpeg.stdin.end();
  await pipeline(ffmpeg.stdout as Readable, new PassThrough(), reader.sink());
  if ((await exited) !== 0) throw new Error('ffmpeg could not decode the audio');
  const heard = reader.decode();
  return { heard: options.cutWords ? reader.withCutWords(heard) : heard, durationSeconds: reader.frames.length / 100 };
}

type Frame = 'silence' | 'low' | 'high';

/** 10 ms frames from a second's start to the end of its last tone (sync, then 12 bits: 0.92 s). */
const WORD_FRAMES = 92;
/** The least tone of a cut word a model makes a word of (30 ms). */
const CUT_WORD_FRAMES = 3;

class FrameReader {
  frames: Frame[] = [];
  private carry = Buffer.alloc(0);

  sink(): Writable {
    return new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        let data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
        let offset = 0;
        while (data.length - offset >= FRAME * 2) {
          this.frames.push(classify(data, offset));
          offset += FRAME * 2;
        }
        this.carry = Buffer.from(data.subarray(offset));
        data = Buffer.alloc(0);
        done();
      },
    });
  }

  decode(): HeardSecond[] {
    const heard: HeardSecond[] = [];
    const frames = this.frames;
    for (let i = 0; i < frames.length; i++) {
      if (frames[i] !== 'low' || (i > 0 && frames[i - 1] === 'low')) continue;
      let run = 0;
      while (frames[i + run] === 'low') run++;
      // A sync cut by the start of the audio is a word heard in part: not a word.
      if (run < 8 || (i === 0 && run < 10)) continue;
      // The bits must all be inside the audio.
      if (i + 10 + 7 * (BITS - 1) + 4 >= frames.length) continue;
      let second = 0;
      for (let bit = 0; bit < BITS; bit++) {
        const at = i + 10 + 7 * bit;
        const high = [at + 1, at + 2, at + 3].filter((f) => frames[f] === 'high').length >= 2;
        second = (second << 1) | (high ? 1 : 0);
      }
      const start = i / 100;
      heard.push({ second, start, end: Math.min(start + 1, frames.length / 100) });
      i += 90;
    }
    return heard;
  }

  /**
   * The whole words and the fragments of a word before the first and after the last (at least
   * CUT_WORD_FRAMES of tone, so a click is no word), named after their whole neighbour.
   */
  withCutWords(whole: HeardSecond[]): HeardSecond[] {
    if (whole.length === 0) return whole;
    const toned = (from: number, to: number) => {
      const frames: number[] = [];
      for (let i = Math.max(0, from); i < Math.min(to, this.frames.length); i++) if (this.frames[i] !== 'silence') frames.push(i);
      return frames;
    };
    const first = whole[0]!;
    const last = whole.at(-1)!;
    const before = toned(0, Math.round(first.start * 100));
    // A second's tones end 0.92 s after its start; what sounds after that belongs to the next second.
    const after = toned(Math.round(last.start * 100) + WORD_FRAMES, this.frames.length);
    const heard = [...whole];
    if (before.length >= CUT_WORD_FRAMES && first.second > 0)
      heard.unshift({ second: first.second - 1, start: 0, end: (before.at(-1)! + 1) / 100, cut: true });
    if (after.length >= CUT_WORD_FRAMES)
      heard.push({ second: last.second + 1, start: after[0]! / 100, end: this.frames.length / 100, cut: true });
    return heard;
  }
}

function classify(data: Buffer, offset: number): Frame {
  let energy = 0;
  let crossings = 0;
  let previous = data.readInt16LE(offset);
  for (let i = 0; i < FRAME; i++) {
    const sample = data.readInt16LE(offset + i * 2);
    energy += sample * sample;
    if (sample >= 0 !== previous >= 0) crossings++;
    previous = sample;
  }
  const rms = Math.sqrt(energy / FRAME);
  if (rms < AMPLITUDE * 0.25) return 'silence';
  // 500 Hz crosses zero ~10 times per 10 ms, 1500 Hz ~30 times.
  return crossings < 20 ? 'low' : 'high';
}
