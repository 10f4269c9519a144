// Cuts a time range out of an audio file without re-encoding: the compressed packets of the range
// are copied into a new file of the same container (mediabunny, pure TypeScript: no ffmpeg, no
// native build). Memory stays bounded: the source is read through a small cache, the chunk is
// written straight to disk.

import { open } from 'node:fs/promises';
import type * as Mediabunny from 'mediabunny';
import type { AudioFormat } from '../port.ts';

export interface WrittenChunk {
  /** Where the chunk's first packet sits in the whole audio (< 0 for a priming packet): its transcript's times start here. */
  offsetSeconds: number;
  durationSeconds: number;
}

/** The audio cannot be read as its format says (corrupt, or a codec the container writer lacks). */
export class AudioSplitError extends Error {
  override name = 'AudioSplitError';
}

/** The writer's buffer (mediabunny's default is 16 MiB per output, times the chunks in flight). */
const WRITE_CHUNK_BYTES = 2 ** 20;

// mediabunny is loaded by the first split (~20 MB of RSS that a server without long audio never needs).
type Mb = typeof Mediabunny;

function inputFormats(mb: Mb, format: AudioFormat): Mediabunny.InputFormat[] {
  return [{ mp3: mb.MP3, wav: mb.WAVE, m4a: mb.MP4, aac: mb.ADTS }[format]];
}

function outputFormat(mb: Mb, format: AudioFormat): Mediabunny.OutputFormat {
  switch (format) {
    case 'mp3':
      return new mb.Mp3OutputFormat();
    case 'wav':
      return new mb.WavOutputFormat();
    case 'aac':
      return new mb.AdtsOutputFormat();
    case 'm4a':
      return new mb.Mp4OutputFormat();
  }
}

export interface AudioSplitter {
  /** Writes the packets covering [start, end) seconds to `outPath`, timed from 0; `end` may be Infinity. */
  cut(start: number, end: number, outPath: string): Promise<WrittenChunk>;
  close(): void;
}

/**
 * The source file through a read-ahead that grows to a few MiB. mediabunny's own FilePathSource
 * reads 64 KiB blocks, and its MP3 reader asks for 64 KiB from every frame: nearly every request
 * straddles two blocks and is copied into a fresh 64 KiB array, gigabytes of garbage for an hour
 * of MP3 (hundreds of MB of peak RSS). With multi-MiB blocks such copies become rare.
 */
async function fileSource(mb: Mb, sourcePath: string) {
  const handle = await open(sourcePath, 'r');
  const { size } = await handle.stat();
  return new mb.CustomSource({
    getSize: () => size,
    read: async (start, end) => {
      const bytes = new Uint8Array(end - start);
      await handle.read(bytes, 0, bytes.byteLength, start);
      return bytes;
    },
    dispose: () => void handle.close(),
    // 'network' grows the read-ahead of a sequential reader up to 8 MiB per read.
    prefetchProfile: 'network',
    maxCacheSize: 16 * 2 ** 20,
  });
}

export async function openSplitter(sourcePath: string, format: AudioFormat): Promise<AudioSplitter> {
  const mb = await import('mediabunny');
  const input = new mb.Input({ source: await fileSource(mb, sourcePath), formats: inputFormats(mb, format) });
  let track: Mediabunny.InputAudioTrack | null;
  try {
    track = await input.getPrimaryAudioTrack();
  } catch (error) {
    input.dispose();
    throw new AudioSplitError(`the ${format} audio cannot be read: ${(error as Error).message}`, { cause: error });
  }
  const codec = track?.codec;
  if (!track || !codec) {
    input.dispose();
    throw new AudioSplitError(`the ${format} audio has no audio track this service can split`);
  }
  const audio = track;
  const decoderConfig = await audio.getDecoderConfig();
  const sink = new mb.EncodedPacketSink(audio);
  // One cut at a time over the shared input: cuts are quick local copies, requests are the slow part.
  let queue: Promise<unknown> = Promise.resolve();

  async function cut(start: number, end: number, outPath: string): Promise<WrittenChunk> {
    // From the very first packet at the start (an AAC priming packet has a negative time) and to
    // the very last at the end (a container's duration can be an estimate a little short).
    const first = start <= 0 ? await sink.getFirstPacket() : ((await sink.getPacket(start)) ?? (await sink.getFirstPacket()));
    if (!first) throw new AudioSplitError('the audio has no packets');
    // The packet playing at `end` is included, so the chunk covers at least [start, end).
    const last = Number.isFinite(end) ? await sink.getPacket(end) : null;
    const stop = last ? await sink.getNextPacket(last) : null;
    const output = new mb.Output({
      format: outputFormat(mb, format),
      target: new mb.FilePathTarget(outPath, { chunkSize: WRITE_CHUNK_BYTES }),
    });
    const source = new mb.EncodedAudioPacketSource(codec!);
    output.addAudioTrack(source);
    await output.start();
    try {
      let meta: { decoderConfig: AudioDecoderConfig } | undefined = decoderConfig ? { decoderConfig } : undefined;
      let lastEnd = first.timestamp;
      for await (const packet of sink.packets(first, stop ?? undefined)) {
        await source.add(packet.clone({ timestamp: packet.timestamp - first.timestamp }), meta);
        meta = undefined;
        lastEnd = packet.timestamp + packet.duration;
      }
      await output.finalize();
      return { offsetSeconds: first.timestamp, durationSeconds: lastEnd - first.timestamp };
    } catch (error) {
      await output.cancel();
      throw error;
    }
  }

  return {
    cut(start, end, outPath) {
      const result = queue.then(() => cut(start, end, outPath));
      queue = result.catch(() => undefined);
      return result;
    },
    close: () => input.dispose(),
  };
}
