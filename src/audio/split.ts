// Cuts a time range out of an audio file without re-encoding: the compressed packets of the range
// are copied into a new file of the same container, in pure TypeScript (no ffmpeg, no native
// build). Memory stays bounded whatever the audio's length: WAV is cut by byte arithmetic, MP3
// and ADTS by a streaming pass over frame headers, MP4 from its sample table (wav.ts, frames.ts,
// mp4.ts); only MP4 layouts that reader leaves alone go through mediabunny.

import type * as Mediabunny from 'mediabunny';
import { AudioSplitError, type AudioSplitter, type WrittenChunk } from './file-io.ts';
import type { AudioFormat } from './format.ts';
import { openFrameSplitter } from './frames.ts';
import { openMp4Splitter } from './mp4.ts';
import { openWavSplitter } from './wav.ts';

export { AudioSplitError, type AudioSplitter, type WrittenChunk } from './file-io.ts';

/** The writer's buffer (mediabunny's default is 16 MiB per output). */
const WRITE_CHUNK_BYTES = 2 ** 20;

async function openFormatSplitter(sourcePath: string, format: AudioFormat): Promise<AudioSplitter> {
  switch (format) {
    case 'wav':
      return openWavSplitter(sourcePath);
    case 'mp3':
    case 'aac':
      return openFrameSplitter(sourcePath, format);
    case 'm4a':
      return (await openMp4Splitter(sourcePath)) ?? (await openMediabunnySplitter(sourcePath));
  }
}

/**
 * A splitter for the file. Cuts run one at a time: they are quick local copies through shared
 * buffers, the requests are the slow part.
 */
export async function openSplitter(sourcePath: string, format: AudioFormat): Promise<AudioSplitter> {
  const splitter = await openFormatSplitter(sourcePath, format);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    cut(start, end, outPath) {
      const result = queue.then(() => splitter.cut(start, end, outPath));
      queue = result.catch(() => undefined);
      return result;
    },
    close: () => splitter.close(),
  };
}

/**
 * MP4 layouts the sample-table reader leaves alone (fragmented, compact sizes), through mediabunny's
 * reader. mediabunny is loaded here, on first use (~20 MB of RSS an idle server does not need).
 */
async function openMediabunnySplitter(sourcePath: string): Promise<AudioSplitter> {
  const { EncodedAudioPacketSource, EncodedPacketSink, FilePathSource, FilePathTarget, Input, MP4, Mp4OutputFormat, Output } = await import(
    'mediabunny'
  );
  const input = new Input({ source: new FilePathSource(sourcePath), formats: [MP4] });
  let track: Mediabunny.InputAudioTrack | null;
  try {
    track = await input.getPrimaryAudioTrack();
  } catch (error) {
    input.dispose();
    throw new AudioSplitError(`the m4a audio cannot be read: ${(error as Error).message}`, { cause: error });
  }
  const codec = track?.codec;
  if (!track || !codec) {
    input.dispose();
    throw new AudioSplitError(`the m4a audio has no audio track this service can split`);
  }
  const audio = track;
  const decoderConfig = await audio.getDecoderConfig();
  const sink = new EncodedPacketSink(audio);

  // Time 0 is the first packet's when an edit list places it later (a segment of a longer
  // encoding), as in mp4.ts; a priming packet (< 0) stays before 0.
  const origin = Math.max(0, (await sink.getFirstPacket())?.timestamp ?? 0);

  async function cut(start: number, end: number, outPath: string): Promise<WrittenChunk> {
    // From the very first packet at the start (an AAC priming packet has a negative time) and to
    // the very last at the end (a container's duration can be an estimate a little short).
    const first = start <= 0 ? await sink.getFirstPacket() : ((await sink.getPacket(start + origin)) ?? (await sink.getFirstPacket()));
    if (!first) throw new AudioSplitError('the audio has no packets');
    // The packet playing at `end` is included, so the chunk covers at least [start, end).
    const last = Number.isFinite(end) ? await sink.getPacket(end + origin) : null;
    const stop = last ? await sink.getNextPacket(last) : null;
    const output = new Output({ format: new Mp4OutputFormat(), target: new FilePathTarget(outPath, { chunkSize: WRITE_CHUNK_BYTES }) });
    const source = new EncodedAudioPacketSource(codec!);
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
      return { offsetSeconds: first.timestamp - origin, durationSeconds: lastEnd - first.timestamp };
    } catch (error) {
      await output.cancel();
      throw error;
    }
  }

  return { cut, close: () => input.dispose() };
}
