import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openSplitter } from '../../src/audio/split.ts';
import { hearSeconds, type ToneFormat, toneFile } from './tone-audio.ts';

// The splitter alone, on tone audio whose second k says "k": each chunk must hold the seconds of
// its range, its reported offset must place them where they are in the whole audio, and its
// reported duration must be what a decoder plays.

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-split-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECONDS = 300;
const RANGES = [
  [0, 104],
  [100, 204],
  [200, Number.POSITIVE_INFINITY],
] as const;

async function ffprobeDuration(file: string): Promise<number> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
  return Number(stdout.trim());
}

async function encode(input: string, output: string, options: string[]) {
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', input, ...options, output]);
}

async function expectChunksHoldTheirSeconds(source: string, format: ToneFormat, seconds: number) {
  const splitter = await openSplitter(source, format);
  const heardAnywhere = new Set<number>();
  try {
    for (const [index, [start, end]] of RANGES.entries()) {
      const out = path.join(dir, `chunk-${format}-${index}.${format}`);
      const written = await splitter.cut(start, end, out);
      const { heard, durationSeconds } = await hearSeconds(out);
      // Starts at the packet playing at `start` (a codec's priming packet may start it a little early).
      expect(written.offsetSeconds).toBeLessThanOrEqual(start);
      expect(written.offsetSeconds).toBeGreaterThan(start - 0.2);
      expect(Math.abs(written.durationSeconds - durationSeconds), `${format} chunk ${index} duration`).toBeLessThan(0.15);
      for (const word of heard) {
        expect(Math.abs(word.start + written.offsetSeconds - word.second), `${format} second ${word.second}`).toBeLessThan(0.25);
        heardAnywhere.add(word.second);
      }
      // Every whole second of the range is in the chunk (the first may be cut by the edge: chunks overlap for it).
      const last = Math.min(end, seconds) - 1;
      const inChunk = new Set(heard.map((word) => word.second));
      for (let k = Math.ceil(start) + 1; k < last; k++) expect(inChunk.has(k), `${format} chunk ${index} second ${k}`).toBe(true);
    }
  } finally {
    splitter.close();
  }
  expect([...heardAnywhere].sort((a, b) => a - b)).toEqual(Array.from({ length: seconds }, (_, k) => k));
}

describe('cutting audio into chunks without re-encoding', () => {
  it.each(['wav', 'mp3', 'm4a', 'aac'] as const)(
    'cuts a %s into chunks that hold exactly their time ranges',
    async (format) => {
      await expectChunksHoldTheirSeconds(await toneFile(format, SECONDS), format, SECONDS);
    },
    120_000,
  );

  it('cuts a VBR mp3 behind an ID3 tag and before trailing junk, each chunk with a Xing header a server reads its duration from', async () => {
    const wav = await toneFile('wav', SECONDS);
    const vbr = path.join(dir, 'vbr.mp3');
    await encode(wav, vbr, ['-c:a', 'libmp3lame', '-q:a', '6', '-id3v2_version', '3', '-metadata', 'title=Consultation']);
    // An ID3v1 tag and some garbage after the last frame.
    appendFileSync(vbr, Buffer.concat([Buffer.from('TAG'), Buffer.alloc(125, 0x41), Buffer.alloc(300, 0xff)]));
    await expectChunksHoldTheirSeconds(vbr, 'mp3', SECONDS);
    const splitter = await openSplitter(vbr, 'mp3');
    try {
      const out = path.join(dir, 'vbr-chunk.mp3');
      const written = await splitter.cut(100, 204, out);
      // Without a Xing header ffprobe would guess the duration from the first frame's bitrate.
      expect(Math.abs((await ffprobeDuration(out)) - written.durationSeconds)).toBeLessThan(0.1);
    } finally {
      splitter.close();
    }
  }, 120_000);

  it.each([
    ['its index after the audio', ['-movflags', '-faststart']],
    ['fragments (read by mediabunny instead)', ['-movflags', 'frag_keyframe+empty_moov', '-frag_duration', '10000000']],
  ])(
    'cuts an m4a with %s',
    async (_layout, flags) => {
      const source = path.join(dir, `layout-${flags[1]}.m4a`);
      await encode(await toneFile('wav', SECONDS), source, ['-c:a', 'aac', '-b:a', '48k', ...flags]);
      await expectChunksHoldTheirSeconds(source, 'm4a', SECONDS);
    },
    120_000,
  );

  it('cuts a WAV whose header carries extra chunks and a streaming recorder’s unknown data size', async () => {
    const source = await toneFile('wav', SECONDS);
    const copy = path.join(dir, 'streamed.wav');
    // The 44-byte header becomes: RIFF, fmt, LIST (odd size, padded), data of size 0xFFFFFFFF.
    const bytes = readFileSync(source);
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([5, 0, 0, 0]), Buffer.from('INFOx'), Buffer.alloc(1)]);
    const data = Buffer.from(bytes.subarray(36, 44));
    data.writeUInt32LE(0xffffffff, 4);
    writeFileSync(copy, Buffer.concat([bytes.subarray(0, 36), list, data, bytes.subarray(44)]));
    await expectChunksHoldTheirSeconds(copy, 'wav', SECONDS);
  }, 120_000);

  it('cuts an m4a segment of a longer encoding from its own start, not from where its edit list says it was', async () => {
    // ffmpeg's segment muxer (stream copy) writes an edit list placing segment 2 at 100.48 s.
    const segments = path.join(dir, 'segments');
    await run('mkdir', ['-p', segments]);
    await run('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-i', await toneFile('m4a', SECONDS), '-c', 'copy'],
      ...['-f', 'segment', '-segment_format', 'ipod', '-segment_times', '100.5', path.join(segments, 'part%d.m4a')],
    ]);
    const source = path.join(segments, 'part1.m4a');
    const splitter = await openSplitter(source, 'm4a');
    try {
      const out = path.join(dir, 'segment-head.m4a');
      const written = await splitter.cut(0, 30, out);
      expect(written.offsetSeconds).toBe(0);
      expect(written.durationSeconds).toBeGreaterThan(29.9);
      const { heard } = await hearSeconds(out);
      expect(heard.map((word) => word.second)).toEqual(Array.from({ length: 29 }, (_, k) => 101 + k));
      const tail = await splitter.cut(150, Number.POSITIVE_INFINITY, path.join(dir, 'segment-tail.m4a'));
      expect(tail.offsetSeconds).toBeGreaterThan(149.8);
      expect(tail.offsetSeconds).toBeLessThanOrEqual(150);
    } finally {
      splitter.close();
    }
  }, 120_000);

  it('refuses a file that is not the format it claims', async () => {
    const text = path.join(dir, 'text.mp3');
    appendFileSync(text, 'not audio at all, just words in a file '.repeat(100));
    await expect(openSplitter(text, 'mp3')).rejects.toThrow(/no MPEG audio frames/);
    await expect(openSplitter(text, 'wav')).rejects.toThrow(/RIFF/);
    await expect(openSplitter(text, 'aac')).rejects.toThrow(/no ADTS frames/);
  });
});
