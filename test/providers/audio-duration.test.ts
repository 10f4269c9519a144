import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeDurationSeconds } from '../../src/audio/duration.ts';
import { FIXTURES } from '../helpers/uploads.ts';
import { hostileAac, hostileM4a, hostileMp3, hostileWav, m4a, writeM4aWithHugeSampleTable } from './hostile-audio.ts';

// The upload's duration probe reads durations with the audio toolkit's own bounded parsers. Its
// figures match ffprobe's on real recordings, and a crafted file costs it what its headers cost,
// never what its tables declare.

const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-duration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** ffprobe's duration; for raw AAC (ADTS), whose container has none, its decoded frames' (it estimates from the bitrate). */
function ffprobeSeconds(file: string): number {
  const run = (args: string[]) => execFileSync('ffprobe', ['-v', 'error', ...args, '-of', 'csv=p=0', file], { encoding: 'utf8' }).trim();
  if (!file.endsWith('.aac')) return Number(run(['-show_entries', 'format=duration']));
  const [rate, frames] = run(['-count_frames', '-show_entries', 'stream=sample_rate,nb_read_frames']).split(',').map(Number);
  return (frames! * 1024) / rate!;
}

const hasFfprobe = (() => {
  try {
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('probeDurationSeconds', () => {
  it.runIf(hasFfprobe).each(['consultation.mp3', 'consultation.m4a', 'consultation.wav', 'consultation.aac', 'too-short.mp3'])(
    'measures %s as ffprobe does (within 0.1 s)',
    async (name) => {
      const file = path.join(FIXTURES, name);
      const seconds = await probeDurationSeconds(file);
      expect(seconds).not.toBeNull();
      expect(Math.abs(seconds! - ffprobeSeconds(file))).toBeLessThan(0.1);
    },
  );

  it.each(['fake.mp3', 'truncated.m4a'])('finds no measurable audio in %s', async (name) => {
    expect(await probeDurationSeconds(path.join(FIXTURES, name))).toBeNull();
  });

  it('reads an m4a of 15 million samples from its track header, without its sample table', async () => {
    const file = path.join(dir, 'huge.m4a');
    writeM4aWithHugeSampleTable(file, { samples: 15_000_000, mdatBytes: 1024, seconds: 1800 });
    const before = process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed;
    expect(await probeDurationSeconds(file)).toBe(1800);
    // A reader of the table would hold its 60 MB (and far more as objects); the probe holds a read buffer.
    expect(process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed - before).toBeLessThan(16 * 2 ** 20);
  });

  it('gives an m4a of endless nested boxes up after a bounded walk', async () => {
    // A moov holding 100,000 empty boxes before its track: the walk stops at its box budget.
    const filler = Buffer.alloc(8 * 100_000);
    for (let i = 0; i < 100_000; i++) {
      filler.writeUInt32BE(8, 8 * i);
      filler.write('free', 8 * i + 4, 'latin1');
    }
    const file = path.join(dir, 'boxes.m4a');
    const bytes = m4a(60, {});
    const moovAt = bytes.indexOf('moov') - 4;
    const moovSize = bytes.readUInt32BE(moovAt);
    const crafted = Buffer.concat([bytes.subarray(0, moovAt), Buffer.alloc(4), Buffer.from('moov'), filler, bytes.subarray(moovAt + 8)]);
    crafted.writeUInt32BE(moovSize + filler.length, moovAt);
    writeFileSync(file, crafted);
    expect(await probeDurationSeconds(file)).toBeNull();
  });

  it('gives the crafted files a duration from their bytes or none, never a count they declare', async () => {
    const cases = { ...hostileM4a, ...hostileMp3, ...hostileWav, ...hostileAac };
    for (const [name, make] of Object.entries(cases)) {
      const file = path.join(dir, 'crafted');
      writeFileSync(file, make());
      const seconds = await probeDurationSeconds(file);
      // The m4a ones say 2000 s in their track header, which is read as said (the splitter checks the table).
      if (seconds !== null) expect(seconds, name).toBeLessThanOrEqual(2000);
    }
  });
});
