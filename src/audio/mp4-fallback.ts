// Checks an m4a before mediabunny reads it. mediabunny trusts the counts in the file: a `trun`
// without per-sample fields, or an `stz2` of 0-bit sizes, makes it push one object per declared
// sample (~4 billion from a few bytes: the process dies of heap exhaustion, which no catch can
// stop). So every table of every track, and every fragment's run, must hold what it says, and the
// samples of all of them together are capped.

import type { FileWindow } from './file-io.ts';
import { type Box, boxes, child, entryCount, readBox, topLevelBoxes, unreadableMp4 } from './mp4-boxes.ts';

/**
 * The most samples mediabunny may be asked to index: it keeps an object per sample of a fragment,
 * so this stays lower than the table reader's cap. 1.5 hours of 48 kHz AAC.
 */
export const MAX_FALLBACK_SAMPLES = 2 ** 18;

/** Entry header and entry bytes of each table mediabunny reads, by box type. */
const TABLES: Record<string, [header: number, entry: number]> = {
  stts: [8, 8],
  ctts: [8, 8],
  stss: [8, 4],
  stsc: [8, 12],
  stco: [8, 4],
  co64: [8, 8],
};

/** Throws an AudioSplitError unless the `moov` and (for a fragmented file) every `moof` hold what they say. */
export async function checkFallbackLayout(window: FileWindow, moov: Buffer): Promise<void> {
  const root = [...boxes(moov, 0, moov.length)][0];
  if (!root) throw unreadableMp4('its moov box is empty');
  let samples = 0;
  const count = (more: number) => {
    samples += more;
    if (samples > MAX_FALLBACK_SAMPLES)
      throw unreadableMp4(`it says more than the ${MAX_FALLBACK_SAMPLES} samples this service splits in this layout`);
  };
  for (const trak of boxes(moov, root.start, root.end)) {
    if (trak.type !== 'trak') continue;
    const stbl = child(moov, child(moov, child(moov, trak, 'mdia'), 'minf'), 'stbl');
    if (stbl) count(tableSamples(moov, stbl));
  }
  if (!child(moov, root, 'mvex')) return;
  for await (const box of topLevelBoxes(window)) {
    if (box.type !== 'moof') continue;
    const moof = await readBox(window, box);
    const top = [...boxes(moof, 0, moof.length)][0]!;
    for (const traf of boxes(moof, top.start, top.end)) {
      if (traf.type !== 'traf') continue;
      for (const trun of boxes(moof, traf.start, traf.end)) if (trun.type === 'trun') count(runSamples(moof, trun));
    }
  }
}

/** Checks the sample tables of one `stbl` against their boxes; returns the samples they time. */
function tableSamples(moov: Buffer, stbl: Box): number {
  let timed = 0;
  for (const box of boxes(moov, stbl.start, stbl.end)) {
    const table = TABLES[box.type];
    if (table) {
      const entries = entryCount(moov, box, ...table);
      if (box.type === 'stts') for (let i = 0; i < entries; i++) timed += moov.readUInt32BE(box.start + 8 + 8 * i);
    } else if (box.type === 'stsz') {
      if (box.start + 12 > box.end) throw unreadableMp4('its stsz box is too short for its header');
      const listed = Math.floor((box.end - box.start - 12) / 4);
      const declared = moov.readUInt32BE(box.start + 8);
      if (moov.readUInt32BE(box.start + 4) === 0 && declared > listed)
        throw unreadableMp4(`its stsz box says ${declared} sizes and holds ${listed}`);
    } else if (box.type === 'stz2') {
      if (box.start + 12 > box.end) throw unreadableMp4('its stz2 box is too short for its header');
      const bits = moov[box.start + 7]!;
      const declared = moov.readUInt32BE(box.start + 8);
      if (![4, 8, 16].includes(bits)) throw unreadableMp4(`its stz2 box has ${bits}-bit sample sizes`);
      if (Math.ceil((declared * bits) / 8) > box.end - box.start - 12)
        throw unreadableMp4(`its stz2 box says ${declared} sizes and holds fewer`);
    }
  }
  return timed;
}

/** A fragment run's sample count, checked against the per-sample fields its body holds. */
function runSamples(moof: Buffer, trun: Box): number {
  if (trun.start + 8 > trun.end) throw unreadableMp4('its trun box is too short for its header');
  const flags = moof.readUInt32BE(trun.start) & 0xffffff;
  const declared = moof.readUInt32BE(trun.start + 4);
  const header = 8 + (flags & 0x1 ? 4 : 0) + (flags & 0x4 ? 4 : 0);
  const perSample = 4 * [0x100, 0x200, 0x400, 0x800].filter((bit) => flags & bit).length;
  if (perSample > 0 && declared > Math.floor((trun.end - trun.start - header) / perSample)) {
    throw unreadableMp4(`its trun box says ${declared} samples and holds fewer`);
  }
  return declared;
}
