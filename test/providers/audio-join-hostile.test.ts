import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { joinAudio } from '../../src/audio/join.ts';
import { fullBox, u32 } from '../../src/audio/mp4-boxes.ts';
import { m4a } from './hostile-audio.ts';

// Live parts that pass every check can still make the join's work large: an m4a whose samples
// alternate between two durations makes one time-to-sample entry per sample. The joined file's
// table is written without handing the entries to a function as arguments (which overflowed the
// stack at a few hundred thousand).

const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-join-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An m4a of `samples` one-byte samples whose durations alternate 1024, 1023, 1024, ... */
function alternating(samples: number): Buffer {
  const stts = Buffer.alloc(8 * samples);
  for (let i = 0; i < samples; i++) {
    stts.writeUInt32BE(1, 8 * i);
    stts.writeUInt32BE(i % 2 ? 1023 : 1024, 8 * i + 4);
  }
  return m4a(60, {
    stts: fullBox('stts', 0, u32(samples), stts),
    stsc: fullBox('stsc', 0, u32(1, 1, samples, 1)),
    stsz: fullBox('stsz', 0, u32(1, samples)),
  });
}

describe('joining m4a parts', () => {
  it('writes a table of 80,000 alternating durations (one entry per sample)', async () => {
    const parts = [0, 1].map((i) => {
      const file = path.join(dir, `part-${i}.m4a`);
      writeFileSync(file, alternating(40_000));
      return { path: file, start: 0, end: Number.POSITIVE_INFINITY };
    });
    const joined = await joinAudio('m4a', parts, path.join(dir, 'joined.m4a'));
    expect(joined).toHaveLength(2);
    const seconds = joined.reduce((sum, piece) => sum + piece.durationSeconds, 0);
    expect(seconds).toBeCloseTo((80_000 * 1023.5) / 16_000, 0);
  });
});
