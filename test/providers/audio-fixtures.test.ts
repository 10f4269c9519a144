// Guards the committed audio fixtures (made by test/fixtures/make-audio.sh) that upload and
// provider tests rely on: right container bytes, right length, small.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../fixtures/audio/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir));

describe('audio fixtures', () => {
  it('are all there and small (whole directory under 2 MB)', () => {
    const names = readdirSync(dir).sort();
    expect(names).toEqual([
      'consultation.aac',
      'consultation.m4a',
      'consultation.mp3',
      'consultation.wav',
      'fake.mp3',
      'too-short.mp3',
      'truncated.m4a',
    ]);
    const total = names.reduce((sum, name) => sum + statSync(new URL(name, dir)).size, 0);
    expect(total).toBeLessThan(2 * 1024 * 1024);
  });

  it('carry the bytes of their formats', () => {
    for (const mp3 of ['consultation.mp3', 'too-short.mp3']) expect(read(mp3).subarray(0, 3).toString('latin1')).toBe('ID3');
    expect(read('consultation.m4a').subarray(4, 8).toString('latin1')).toBe('ftyp');
    const aac = read('consultation.aac');
    expect(aac[0]).toBe(0xff);
    expect(aac[1]! & 0xf6).toBe(0xf0); // ADTS sync word, layer 0
    const wav = read('consultation.wav');
    expect([wav.subarray(0, 4).toString('latin1'), wav.subarray(8, 12).toString('latin1')]).toEqual(['RIFF', 'WAVE']);
    expect(read('fake.mp3').toString('utf8')).toMatch(/^This is a text file/);
    expect(read('truncated.m4a').length).toBe(2048);
    expect(read('truncated.m4a').equals(read('consultation.m4a').subarray(0, 2048))).toBe(true);
  });

  it('the WAV is 16 kHz mono and 15-25 s long (within the 10-3600 s limits)', () => {
    const wav = read('consultation.wav');
    const channels = wav.readUInt16LE(22);
    const sampleRate = wav.readUInt32LE(24);
    const byteRate = wav.readUInt32LE(28);
    expect([channels, sampleRate]).toEqual([1, 16_000]);
    const dataSize = wav.length - 44;
    const seconds = dataSize / byteRate;
    expect(seconds).toBeGreaterThan(15);
    expect(seconds).toBeLessThan(25);
  });
});
