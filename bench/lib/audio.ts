import { randomFillSync } from 'node:crypto';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** 23.7 s of speech, 71.5 KB: the small upload of the pipeline benchmark. */
export const FIXTURE_MP3 = path.join(ROOT, 'test/fixtures/audio/consultation.mp3');

const SAMPLE_RATE = 16_000;
const BYTES_PER_SECOND = SAMPLE_RATE * 2; // mono, 16-bit

/**
 * Writes a valid PCM WAV file of exactly `totalBytes` (16 kHz mono 16-bit: 100 MB ≈ 55 min, within
 * the 10-3600 s the API accepts). The samples are noise, so nothing downstream can shortcut zeros.
 * Returns its duration in seconds, as read from the header.
 */
export async function writeWav(filePath: string, totalBytes: number): Promise<number> {
  const dataBytes = (totalBytes - 44) & ~1;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // channels
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(BYTES_PER_SECOND, 28);
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);

  const noise = randomFillSync(Buffer.alloc(1024 * 1024));
  const file = await open(filePath, 'w');
  try {
    await file.write(header);
    for (let written = 0; written < dataBytes; written += noise.length) {
      await file.write(noise, 0, Math.min(noise.length, dataBytes - written));
    }
  } finally {
    await file.close();
  }
  return dataBytes / BYTES_PER_SECOND;
}
