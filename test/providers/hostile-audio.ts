// Crafted audio files whose headers declare counts and sizes the bytes do not hold: a reader that
// sizes an allocation or a loop from such a field before checking it against the file runs out of
// memory or time. Each file is small (tens of KB) and says a long duration, so an upload accepts
// it as audio and the splitter is asked to cut it. Built from scratch here, so the test states
// exactly which field lies.

import { closeSync, openSync, writeSync } from 'node:fs';
import { box, fullBox, u32 } from '../../src/audio/mp4-boxes.ts';
import { fixture } from '../helpers/uploads.ts';

// --- MP4 ---

/** The body of the first box of `type` found by descending `path` from the top of `bytes`. */
function findBox(bytes: Buffer, path: string[]): Buffer {
  let [start, end] = [0, bytes.length];
  for (const type of path) {
    let found = false;
    for (let pos = start; pos + 8 <= end; ) {
      const size = bytes.readUInt32BE(pos);
      if (bytes.toString('latin1', pos + 4, pos + 8) === type) {
        [start, end, found] = [pos + 8, pos + size, true];
        break;
      }
      pos += size;
    }
    if (!found) throw new Error(`no ${path.join('/')} in the fixture`);
  }
  return bytes.subarray(start - 8, end);
}

/** The AAC sample description of a real recording, so every reader sees a codec it knows. */
const STSD = findBox(fixture('consultation.m4a'), ['moov', 'trak', 'mdia', 'minf', 'stbl', 'stsd']);

const MATRIX = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];

export interface Mp4Tables {
  stts?: Buffer;
  stsc?: Buffer;
  stsz?: Buffer;
  stco?: Buffer;
  /** Boxes added to `stbl` after the tables. */
  extra?: Buffer[];
  /** Boxes added to `moov` after the track (an `mvex` makes the file fragmented). */
  moovExtra?: Buffer[];
  /** Top-level boxes between `ftyp` and `moov`. */
  before?: Buffer[];
  /** Top-level boxes after `mdat`. */
  after?: Buffer[];
}

/** Bytes of the `mdat`: zeros, as many as make the file ~49 KB. */
const MDAT_BYTES = 48 * 1024;
const TIMESCALE = 16_000;

/** An m4a that says it lasts `seconds` and holds the given sample tables (sane defaults for the others). */
export function m4a(seconds: number, tables: Mp4Tables): Buffer {
  const duration = seconds * TIMESCALE;
  const frames = Math.floor(MDAT_BYTES / 16);
  const stbl = box(
    'stbl',
    STSD,
    tables.stts ?? fullBox('stts', 0, u32(1, frames, 1024)),
    tables.stsc ?? fullBox('stsc', 0, u32(1, 1, frames, 1)),
    tables.stsz ?? fullBox('stsz', 0, u32(16, frames)),
    tables.stco ?? fullBox('stco', 0, u32(1, 0)),
    ...(tables.extra ?? []),
  );
  const hdlr = fullBox('hdlr', 0, u32(0), Buffer.from('soun', 'latin1'), u32(0, 0, 0), Buffer.from('SoundHandler\0', 'latin1'));
  const minf = box('minf', fullBox('smhd', 0, u32(0)), box('dinf', fullBox('dref', 0, u32(1), box('url ', u32(1)))), stbl);
  const mdia = box('mdia', fullBox('mdhd', 0, u32(0, 0, TIMESCALE, duration, 0x55c40000)), hdlr, minf);
  const tkhd = box('tkhd', u32(3, 0, 0, 1, 0, duration, 0, 0, 0, 0x01000000, ...MATRIX, 0, 0));
  const mvhd = fullBox('mvhd', 0, u32(0, 0, TIMESCALE, duration, 0x00010000, 0x01000000, 0, 0, ...MATRIX, 0, 0, 0, 0, 0, 0, 2));
  const moov = box('moov', mvhd, box('trak', tkhd, mdia), ...(tables.moovExtra ?? []));
  const ftyp = box('ftyp', Buffer.from('M4A ', 'latin1'), u32(0), Buffer.from('M4A isommp42', 'latin1'));
  return Buffer.concat([ftyp, ...(tables.before ?? []), moov, box('mdat', Buffer.alloc(MDAT_BYTES)), ...(tables.after ?? [])]);
}

const HUGE = 0xf000_0000;

/** The hostile m4a files, by the field that lies. */
export const hostileM4a: Record<string, () => Buffer> = {
  // ~4 billion samples of one fixed size: the table is 12 bytes, the arrays it would size are 80 GB.
  'stsz fixed-size sample count': () =>
    m4a(2000, {
      stsz: fullBox('stsz', 0, u32(1, HUGE)),
      stts: fullBox('stts', 0, u32(1, HUGE, 8)),
      stsc: fullBox('stsc', 0, u32(1, 1, HUGE, 1)),
    }),
  // A per-sample size table that says ~4 billion entries and holds none.
  'stsz table count': () => m4a(2000, { stsz: fullBox('stsz', 0, u32(0, HUGE)) }),
  'stts entry count': () => m4a(2000, { stts: fullBox('stts', 0, u32(HUGE)) }),
  'stts run longer than the samples': () => m4a(2000, { stts: fullBox('stts', 0, u32(1, HUGE, 1)) }),
  'stsc entry count': () => m4a(2000, { stsc: fullBox('stsc', 0, u32(HUGE)) }),
  'stsc first chunk past the chunk offsets': () => m4a(2000, { stsc: fullBox('stsc', 0, u32(2, 1, 1, 1, HUGE, 0, 1)) }),
  'stco entry count': () => m4a(2000, { stco: fullBox('stco', 0, u32(HUGE)) }),
  'stco offset past the end of the file': () => m4a(2000, { stco: fullBox('stco', 0, u32(1, 0x7000_0000)) }),
  // Compact sample sizes of 0 bits: ~4 billion sizes read from no bytes at all (mediabunny's reader).
  'stz2 sample count': () => m4a(2000, { stsz: Buffer.alloc(0), extra: [fullBox('stz2', 0, u32(0, HUGE))] }),
  // A fragmented file whose one run says ~4 billion samples, each of the default size and duration.
  'trun sample count': () =>
    m4a(2000, {
      moovExtra: [box('mvex', fullBox('trex', 0, u32(1, 1, 1024, 16, 0)))],
      after: [box('moof', fullBox('mfhd', 0, u32(1)), box('traf', fullBox('tfhd', 0, u32(1)), fullBox('trun', 0, u32(HUGE))))],
    }),
  // Boxes inside boxes, each a byte longer than its parent; then a `moov` nested 3000 deep.
  'nested boxes longer than their parents': () => {
    let inner = box('udta', Buffer.alloc(64));
    for (let depth = 0; depth < 3000; depth++) {
      inner = box(depth % 2 ? 'trak' : 'moov', inner);
      inner.writeUInt32BE(inner.length + 1, 0);
    }
    return m4a(2000, { extra: [inner] });
  },
  // 6000 empty top-level boxes before the `moov`: one read each would be 6000 awaited reads.
  'many top-level boxes': () => m4a(2000, { before: Array.from({ length: 6000 }, () => box('free')) }),
  // A top-level box whose 64-bit size runs past the end of the file.
  '64-bit box size past the end': () => {
    const large = Buffer.concat([u32(1), Buffer.from('free', 'latin1'), Buffer.from([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0])]);
    return m4a(2000, { before: [large] });
  },
};

// --- MP3 ---

/** A frame header of a 16 kHz mono MP3. */
const MP3_HEADER = [0xff, 0xf3, 0x88, 0xc4]; // MPEG-2 layer III, 64 kbps, 16 kHz, mono: 288-byte frames

function mp3Frame(): Buffer {
  const frame = Buffer.alloc(288);
  Buffer.from(MP3_HEADER).copy(frame);
  return frame;
}

/** An MP3 whose first frame is a Xing (or VBRI) tag declaring `frames` frames; ~49 KB of silent frames after it. */
function mp3WithTag(tag: 'Xing' | 'VBRI', frames: number): Buffer {
  const first = mp3Frame();
  if (tag === 'Xing') {
    const at = 4 + 9; // MPEG-2 mono: 9 bytes of side information
    first.write('Xing', at, 'latin1');
    first.writeUInt32BE(0x3, at + 4);
    first.writeUInt32BE(frames, at + 8);
    first.writeUInt32BE(0xffff_fff0, at + 12);
  } else {
    first.write('VBRI', 36, 'latin1');
    first.writeUInt16BE(1, 40); // version
    first.writeUInt32BE(0xffff_fff0, 46); // bytes
    first.writeUInt32BE(frames, 50); // frames
  }
  return Buffer.concat([first, ...Array.from({ length: 170 }, mp3Frame)]);
}

// A 16 kHz MPEG-2 layer III frame plays 576 samples (36 ms): 55 556 frames say 2000 s.
export const hostileMp3: Record<string, () => Buffer> = {
  'Xing frame count (2000 s in 49 KB)': () => mp3WithTag('Xing', 55_556),
  'Xing frame count of 4 billion': () => mp3WithTag('Xing', HUGE),
  'VBRI frame count (2000 s in 49 KB)': () => mp3WithTag('VBRI', 55_556),
};

// --- WAV ---

/** A WAV whose `data` chunk says 0xFFFFFFFF bytes at `byteRate` bytes a second; `dataBytes` are there. */
export function wavWithDataSize(declared: number, byteRate: number, dataBytes: number, extraChunks: Buffer[] = []): Buffer {
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8); // PCM
  fmt.writeUInt16LE(2, 10); // channels
  fmt.writeUInt32LE(byteRate / 4, 12);
  fmt.writeUInt32LE(byteRate, 16);
  fmt.writeUInt16LE(4, 20);
  fmt.writeUInt16LE(16, 22);
  const data = Buffer.alloc(8);
  data.write('data', 0, 'latin1');
  data.writeUInt32LE(declared, 4);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(0xffff_ffff, 4);
  head.write('WAVE', 8, 'latin1');
  return Buffer.concat([head, fmt, ...extraChunks, data, Buffer.alloc(dataBytes)]);
}

function wavChunk(id: string, declared: number, bytes = 0): Buffer {
  const chunk = Buffer.alloc(8 + bytes);
  chunk.write(id, 0, 'latin1');
  chunk.writeUInt32LE(declared, 4);
  return chunk;
}

export const hostileWav: Record<string, () => Buffer> = {
  // 0xFFFFFFFF bytes at 2 MB/s is ~2000 s; 48 KB are there.
  'data size 0xFFFFFFFF': () => wavWithDataSize(0xffff_ffff, 2_147_484, 48 * 1024),
  'fmt size 0xFFFFFFF0': () =>
    Buffer.concat([wavWithDataSize(0xffff_ffff, 2_147_484, 0).subarray(0, 12), wavChunk('fmt ', 0xffff_fff0, 48 * 1024)]),
  // 6000 empty chunks before the data: one read each would be 6000 awaited reads.
  'many empty chunks': () =>
    wavWithDataSize(
      0xffff_ffff,
      2_147_484,
      1024,
      Array.from({ length: 6000 }, () => wavChunk('junk', 0)),
    ),
};

// --- ADTS ---

/** An ADTS header (AAC-LC, 16 kHz, mono) saying `length` bytes and `blocks` raw data blocks. */
function adtsHeader(length: number, blocks = 1): Buffer {
  const header = Buffer.alloc(7);
  header[0] = 0xff;
  header[1] = 0xf1;
  header[2] = (1 << 6) | (8 << 2); // profile LC, 16 kHz
  header[3] = (1 << 6) | ((length >> 11) & 3); // mono
  header[4] = (length >> 3) & 0xff;
  header[5] = ((length & 7) << 5) | 0x1f;
  header[6] = 0xfc | ((blocks - 1) & 3);
  return header;
}

export const hostileAac: Record<string, () => Buffer> = {
  // Every frame says it is 8191 bytes long; each is 16, so every length runs into the next frames' headers or past the end.
  'ADTS frame lengths past the end': () =>
    Buffer.concat(Array.from({ length: 3000 }, () => Buffer.concat([adtsHeader(8191, 4), Buffer.alloc(9)]))),
  // Every frame says it is 5 bytes long, shorter than its own 7-byte header.
  'ADTS frame lengths shorter than the header': () =>
    Buffer.concat(Array.from({ length: 3000 }, () => Buffer.concat([adtsHeader(5), Buffer.alloc(9)]))),
};

/**
 * A large m4a written to `file`: a valid header whose sample table lists `samples` samples of 4
 * bytes (the `stsz` alone holds 4 bytes each: 15 million make ~60 MB), `mdatBytes` of audio after
 * it, and an `mdhd` that says `seconds`. A reader that loads the sample table into objects grows by
 * hundreds of MB; the upload's duration probe must not read it at all. Written in slices, so the
 * test holds a few MB whatever the size.
 */
export function writeM4aWithHugeSampleTable(
  file: string,
  { samples, mdatBytes, seconds }: { samples: number; mdatBytes: number; seconds: number },
) {
  const duration = seconds * TIMESCALE;
  const stszHeader = Buffer.concat([u32(8 + 12 + 4 * samples), Buffer.from('stsz', 'latin1'), u32(0, 0, samples)]);
  const stco = fullBox('stco', 0, u32(1, 0));
  const stszBytes = stszHeader.length + 4 * samples;
  const tables = Buffer.concat([STSD, fullBox('stts', 0, u32(1, samples, 1024)), fullBox('stsc', 0, u32(1, 1, samples, 1))]);
  const stblHead = Buffer.concat([u32(8 + tables.length + stszBytes + stco.length), Buffer.from('stbl', 'latin1'), tables]);
  const stblBytes = stblHead.length + stszBytes + stco.length;
  const smhd = fullBox('smhd', 0, u32(0));
  const dinf = box('dinf', fullBox('dref', 0, u32(1), box('url ', u32(1))));
  const minfBytes = 8 + smhd.length + dinf.length + stblBytes;
  const hdlr = fullBox('hdlr', 0, u32(0), Buffer.from('soun', 'latin1'), u32(0, 0, 0), Buffer.from('SoundHandler\0', 'latin1'));
  const mdhd = fullBox('mdhd', 0, u32(0, 0, TIMESCALE, duration, 0x55c40000));
  const mdiaBytes = 8 + mdhd.length + hdlr.length + minfBytes;
  const tkhd = box('tkhd', u32(3, 0, 0, 1, 0, duration, 0, 0, 0, 0x01000000, ...MATRIX, 0, 0));
  const trakBytes = 8 + tkhd.length + mdiaBytes;
  const mvhd = fullBox('mvhd', 0, u32(0, 0, TIMESCALE, duration, 0x00010000, 0x01000000, 0, 0, ...MATRIX, 0, 0, 0, 0, 0, 0, 2));
  const moovBytes = 8 + mvhd.length + trakBytes;
  const ftyp = box('ftyp', Buffer.from('M4A ', 'latin1'), u32(0), Buffer.from('M4A isommp42', 'latin1'));
  const header = (bytes: number, type: string) => Buffer.concat([u32(bytes), Buffer.from(type, 'latin1')]);
  const fd = openSync(file, 'w');
  try {
    for (const part of [
      ftyp,
      header(moovBytes, 'moov'),
      mvhd,
      header(trakBytes, 'trak'),
      tkhd,
      header(mdiaBytes, 'mdia'),
      mdhd,
      hdlr,
      header(minfBytes, 'minf'),
      smhd,
      dinf,
      stblHead,
      stszHeader,
    ]) {
      writeSync(fd, part);
    }
    const slice = Buffer.alloc(4 * 2 ** 20);
    for (let i = 0; i < slice.length; i += 4) slice.writeUInt32BE(4, i);
    for (let left = 4 * samples; left > 0; left -= slice.length) writeSync(fd, slice, 0, Math.min(slice.length, left));
    writeSync(fd, stco);
    writeSync(fd, header(8 + mdatBytes, 'mdat'));
    const zeros = Buffer.alloc(4 * 2 ** 20);
    for (let left = mdatBytes; left > 0; left -= zeros.length) writeSync(fd, zeros, 0, Math.min(zeros.length, left));
  } finally {
    closeSync(fd);
  }
}
