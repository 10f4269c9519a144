import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AudioSplitError, openSplitter } from '../../src/audio/split.ts';
import type { AudioFormat } from '../../src/providers/transcription/port.ts';
import { hostileAac, hostileM4a, hostileMp3, hostileWav, wavWithDataSize } from './hostile-audio.ts';
import { hearSeconds } from './tone-audio.ts';

// The splitter alone on the crafted files of hostile-audio.ts, including those the upload check
// already refuses (a second line of defence: the splitter never trusts what a header says either).
// Each is cut as the job cuts a note that says it lasts 2000 s into six chunks: the splitter must
// refuse it with an AudioSplitError naming the format, never send empty or made-up chunks.

const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-split-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The first two chunks of a six-chunk plan for 2000 s with 4 s of overlap. */
const FIRST_CHUNKS = [
  [0, 336.667],
  [332.667, 669.333],
] as const;

async function cutAsTheJobWould(bytes: Buffer, format: AudioFormat): Promise<void> {
  const file = path.join(dir, `source.${format}`);
  writeFileSync(file, bytes);
  const splitter = await openSplitter(file, format);
  try {
    for (const [index, [start, end]] of FIRST_CHUNKS.entries()) await splitter.cut(start, end, path.join(dir, `chunk-${index}.${format}`));
  } finally {
    splitter.close();
  }
}

const cases = [
  ...Object.entries(hostileM4a).map(([name, make]) => ['m4a', name, make] as const),
  ...Object.entries(hostileMp3).map(([name, make]) => ['mp3', name, make] as const),
  ...Object.entries(hostileWav).map(([name, make]) => ['wav', name, make] as const),
  ...Object.entries(hostileAac).map(([name, make]) => ['aac', name, make] as const),
];

describe('the splitter on files whose headers lie', () => {
  it.each(cases)('refuses a %s with a lying %s', async (format, _name, make) => {
    const before = process.memoryUsage().rss;
    const error = await cutAsTheJobWould(make(), format).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AudioSplitError);
    expect((error as Error).message).toMatch(new RegExp(`the ${format} audio`));
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 2 ** 20);
  });

  it('still cuts a streamed wav whose data size says 0xFFFFFFFF: its data runs to the end of the file', async () => {
    const seconds = 30;
    const file = path.join(dir, 'streamed.wav');
    writeFileSync(file, wavWithDataSize(0xffff_ffff, 64_000, seconds * 64_000));
    const splitter = await openSplitter(file, 'wav');
    try {
      const first = await splitter.cut(0, 16, path.join(dir, 'streamed-0.wav'));
      const last = await splitter.cut(14, Number.POSITIVE_INFINITY, path.join(dir, 'streamed-1.wav'));
      expect(first.durationSeconds).toBeCloseTo(16, 1);
      expect(last.offsetSeconds).toBeCloseTo(14, 1);
      expect(last.durationSeconds).toBeCloseTo(seconds - 14, 1);
      expect((await hearSeconds(path.join(dir, 'streamed-1.wav'))).durationSeconds).toBeCloseTo(seconds - 14, 1);
      await expect(splitter.cut(31, 40, path.join(dir, 'streamed-2.wav'))).rejects.toThrow(/no samples at 31 s/);
    } finally {
      splitter.close();
    }
  });
});
