import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ToneFormat, toneFile } from '../providers/tone-audio.ts';

// Parts of a live recording made from the tone audio of test/providers/tone-audio.ts (second k
// says "k") as a recording app makes them: one continuous encoding per format, cut at packet
// boundaries (ffmpeg's segment muxer, stream copy) into standalone files, so that the parts joined
// again are the original stream; WAV parts are cut from the PCM at the exact sample. Made once per
// machine under the OS temp directory.

const SEGMENT_FORMATS: Record<ToneFormat, string> = { wav: 'wav', mp3: 'mp3', m4a: 'ipod', aac: 'adts' };

/**
 * One part between each two neighbouring `boundaries` (seconds of the recording), in the format
 * `formatOf(index)` chooses: part i of the recording cut from that format's encoding.
 */
export async function toneParts(boundaries: number[], formatOf: (index: number) => ToneFormat, sourceSeconds: number): Promise<Buffer[]> {
  const formats = [...new Set(boundaries.slice(1).map((_, i) => formatOf(i)))];
  const cuts = boundaries.slice(1, -1);
  const tag = createHash('sha256')
    .update(`${sourceSeconds}:${boundaries.join(',')}`)
    .digest('hex')
    .slice(0, 12);
  const segmented = new Map<ToneFormat, string[]>();
  for (const format of formats) {
    if (format === 'wav') continue;
    const dir = path.join(tmpdir(), 'vetflow-tone-audio-v1', `live-parts-${tag}-${format}`);
    if (!existsSync(dir)) {
      const partial = `${dir}.partial-${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      const source = await toneFile(format, sourceSeconds);
      await run('ffmpeg', [
        ...['-hide_banner', '-loglevel', 'error', '-y', '-i', source, '-map_metadata', '-1', '-c', 'copy'],
        ...['-f', 'segment', '-segment_format', SEGMENT_FORMATS[format], '-segment_times', cuts.join(',')],
        ...(format === 'm4a' ? ['-segment_format_options', 'movflags=+faststart'] : []),
        path.join(partial, `part%03d.${format}`),
      ]);
      renameSync(partial, dir);
    }
    segmented.set(
      format,
      readdirSync(dir)
        .sort()
        .map((name) => path.join(dir, name)),
    );
  }
  const pcm = formats.includes('wav') ? readFileSync(await toneFile('wav', sourceSeconds)).subarray(44) : null;
  return boundaries
    .slice(1)
    .map((to, i) =>
      formatOf(i) === 'wav'
        ? wavOf(pcm!.subarray(sampleAt(boundaries[i]!) * 2, sampleAt(to) * 2))
        : readFileSync(segmented.get(formatOf(i))![i]!),
    );
}

// WAV parts are cut from the PCM at the exact sample: a lossless recorder's parts.
const sampleAt = (seconds: number) => Math.round(seconds * 16_000);

function wavOf(data: Buffer): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** One part holding seconds [from, to) of the tones, encoded on its own. */
export async function toneClip(format: ToneFormat, from: number, to: number): Promise<Buffer> {
  const dir = path.join(tmpdir(), 'vetflow-tone-audio-v1', 'clips');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${from}-${to}.${format}`);
  if (!existsSync(file)) {
    const partial = path.join(dir, `partial-${process.pid}.${format}`);
    const codec = {
      wav: ['-c:a', 'pcm_s16le'],
      mp3: ['-c:a', 'libmp3lame', '-b:a', '64k'],
      m4a: ['-c:a', 'aac'],
      aac: ['-c:a', 'aac', '-f', 'adts'],
    };
    await run('ffmpeg', [
      ...[
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-ss',
        String(from),
        '-t',
        String(to - from),
        '-i',
        await toneFile('wav', Math.ceil(to)),
      ],
      ...codec[format],
      partial,
    ]);
    renameSync(partial, file);
  }
  return readFileSync(file);
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${stderr}`))));
  });
}
