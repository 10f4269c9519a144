// The sample table of an m4a's sound track as typed arrays: each sample's decode time, place in the
// file and size. Every count it reads is checked before it sizes an array or a loop: a table must
// hold the entries it says, the samples it says must fit in the file's bytes and number at most
// MAX_SAMPLES, and the tables must agree with one another. A file that lies is refused with an
// AudioSplitError; a layout this reader does not handle (fragmented, compact sample sizes, several
// sample descriptions) answers null, for mediabunny after its own checks (mp4-fallback.ts).

import { type Box, boxes, child, entryCount, unreadableMp4 } from './mp4-boxes.ts';

/**
 * The most samples a sound track may have: 20 bytes of table each, so 20 MB. An AAC frame plays
 * 1024 samples, so this is 6 hours at 48 kHz (a voice recorder writes ~47 frames a second).
 */
export const MAX_SAMPLES = 2 ** 20;

export interface SampleTable {
  /** The whole `stsd` box, copied into every chunk. */
  stsd: Buffer;
  timescale: number;
  /** Seconds added to a sample's decode time to place it in the presentation (edit list). */
  shiftSeconds: number;
  /** Decode time of each sample in `timescale` units, plus the end of the last: n + 1 entries. */
  times: Float64Array;
  offsets: Float64Array;
  sizes: Uint32Array;
}

/** The sound track boxes of `moov` (the buffer holds the whole top-level `moov` box). */
export function* soundTracks(moov: Buffer): Generator<{ trak: Box; mdia: Box | undefined; stbl: Box | undefined }> {
  const root = [...boxes(moov, 0, moov.length)][0];
  if (!root) return;
  for (const trak of boxes(moov, root.start, root.end)) {
    if (trak.type !== 'trak') continue;
    const mdia = child(moov, trak, 'mdia');
    const hdlr = child(moov, mdia, 'hdlr');
    if (!hdlr || hdlr.start + 12 > hdlr.end || moov.toString('latin1', hdlr.start + 8, hdlr.start + 12) !== 'soun') continue;
    yield { trak, mdia, stbl: child(moov, child(moov, mdia, 'minf'), 'stbl') };
  }
}

/** The first sound track's sample table, or null for a layout this reader leaves to mediabunny. */
export function readSampleTable(moov: Buffer, fileSize: number): SampleTable | null {
  const root = [...boxes(moov, 0, moov.length)][0];
  if (!root || child(moov, root, 'mvex')) return null;
  const mvhd = child(moov, root, 'mvhd');
  const movieTimescale = mvhd && mvhd.start + 24 <= mvhd.end ? moov.readUInt32BE(mvhd.start + (moov[mvhd.start] === 1 ? 20 : 12)) : 0;
  for (const { trak, mdia, stbl } of soundTracks(moov)) {
    const mdhd = child(moov, mdia, 'mdhd');
    const [stsd, stts, stsc, stsz] = ['stsd', 'stts', 'stsc', 'stsz'].map((type) => child(moov, stbl, type));
    const stco = child(moov, stbl, 'stco') ?? child(moov, stbl, 'co64');
    if (!mdhd || !stsd || !stts || !stsc || !stsz || !stco || mdhd.start + 24 > mdhd.end) return null;
    if (entryCount(moov, stsd, 8, 8) !== 1) return null;
    const timescale = moov.readUInt32BE(mdhd.start + (moov[mdhd.start] === 1 ? 20 : 12));
    if (timescale === 0) throw unreadableMp4('its track has a timescale of 0');
    const sizes = sampleSizes(moov, stsz, fileSize);
    const times = sampleTimes(moov, stts, sizes.length);
    const offsets = sampleOffsets(moov, stsc, stco, sizes);
    if (!offsets) return null;
    for (let i = 0; i < sizes.length; i++) {
      if (offsets[i]! + sizes[i]! > fileSize) throw unreadableMp4(`sample ${i + 1} lies past the end of the file`);
    }
    return {
      stsd: moov.subarray(stsd.start - 8, stsd.end),
      timescale,
      shiftSeconds: editShift(moov, trak, movieTimescale, timescale),
      times,
      offsets,
      sizes,
    };
  }
  return null;
}

function sampleSizes(moov: Buffer, stsz: Box, fileSize: number): Uint32Array {
  if (stsz.start + 12 > stsz.end) throw unreadableMp4('its stsz box is too short for its header');
  const fixedSize = moov.readUInt32BE(stsz.start + 4);
  const count = moov.readUInt32BE(stsz.start + 8);
  if (count === 0) throw unreadableMp4('its sound track has no samples');
  if (count > MAX_SAMPLES) throw unreadableMp4(`its sound track says ${count} samples, more than the ${MAX_SAMPLES} this service splits`);
  if (fixedSize > 0) {
    // A fixed size has no table to check the count against: the samples' bytes must be in the file.
    if (count * fixedSize > fileSize)
      throw unreadableMp4(`its ${count} samples of ${fixedSize} bytes are more than the file's ${fileSize} bytes`);
    return new Uint32Array(count).fill(fixedSize);
  }
  const listed = Math.floor((stsz.end - stsz.start - 12) / 4);
  if (count > listed) throw unreadableMp4(`its stsz box says ${count} sample sizes and holds ${listed}`);
  const sizes = new Uint32Array(count);
  for (let i = 0; i < count; i++) sizes[i] = moov.readUInt32BE(stsz.start + 12 + 4 * i);
  return sizes;
}

function sampleTimes(moov: Buffer, stts: Box, count: number): Float64Array {
  const entries = entryCount(moov, stts, 8, 8);
  const times = new Float64Array(count + 1);
  let sample = 0;
  for (let entry = 0; entry < entries; entry++) {
    const run = moov.readUInt32BE(stts.start + 8 + 8 * entry);
    const delta = moov.readUInt32BE(stts.start + 12 + 8 * entry);
    if (run > count - sample) throw unreadableMp4(`its stts box times more samples than the ${count} its stsz box lists`);
    for (let k = 0; k < run; k++, sample++) times[sample + 1] = times[sample]! + delta;
  }
  if (sample !== count) throw unreadableMp4(`its stts box times ${sample} of its ${count} samples`);
  return times;
}

/** Each sample's place in the file from the chunk offsets and the sample-to-chunk runs; null for several descriptions. */
function sampleOffsets(moov: Buffer, stsc: Box, stco: Box, sizes: Uint32Array): Float64Array | null {
  const count = sizes.length;
  const wide = stco.type === 'co64';
  const chunkCount = entryCount(moov, stco, 8, wide ? 8 : 4);
  const chunkOffset = (chunk: number) =>
    wide ? Number(moov.readBigUInt64BE(stco.start + 8 + 8 * chunk)) : moov.readUInt32BE(stco.start + 8 + 4 * chunk);
  const runs = entryCount(moov, stsc, 8, 12);
  const stscAt = (entry: number, field: number) => moov.readUInt32BE(stsc.start + 8 + 12 * entry + 4 * field);
  const offsets = new Float64Array(count);
  let sample = 0;
  for (let entry = 0; entry < runs; entry++) {
    const firstChunk = stscAt(entry, 0) - 1;
    const lastChunk = entry + 1 < runs ? stscAt(entry + 1, 0) - 1 : chunkCount;
    const perChunk = stscAt(entry, 1);
    if (stscAt(entry, 2) !== 1) return null;
    if (firstChunk < 0 || lastChunk <= firstChunk || lastChunk > chunkCount) {
      throw unreadableMp4(`its stsc box places samples in chunks ${firstChunk + 1}-${lastChunk} of ${chunkCount}`);
    }
    for (let chunk = firstChunk; chunk < lastChunk && sample < count; chunk++) {
      let offset = chunkOffset(chunk);
      for (let k = 0; k < perChunk && sample < count; k++, sample++) {
        offsets[sample] = offset;
        offset += sizes[sample]!;
      }
    }
  }
  if (sample !== count) throw unreadableMp4(`its chunks hold ${sample} of its ${count} samples`);
  return offsets;
}

/** Where the edit list puts media time 0: an empty edit delays it, a media time skips a priming delay. */
function editShift(moov: Buffer, trak: Box, movieTimescale: number, timescale: number): number {
  const elst = child(moov, child(moov, trak, 'edts'), 'elst');
  if (!elst) return 0;
  const wide = moov[elst.start] === 1;
  let shift = 0;
  for (let entry = 0, entries = entryCount(moov, elst, 8, wide ? 20 : 12); entry < entries; entry++) {
    const at = elst.start + 8 + entry * (wide ? 20 : 12);
    const duration = wide ? Number(moov.readBigUInt64BE(at)) : moov.readUInt32BE(at);
    const mediaTime = wide ? Number(moov.readBigInt64BE(at + 8)) : moov.readInt32BE(at + 4);
    if (mediaTime !== -1) return shift - mediaTime / timescale;
    if (movieTimescale > 0) shift += duration / movieTimescale;
  }
  return shift;
}
