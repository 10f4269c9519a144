// The words an item came from, and when they were said. An item reads words here and there (the
// status cue before the drug, the drug, its dose, and a schedule said a few sentences later); its
// `text` is each run of those words as transcribed, from the first word used to the last, the runs
// joined by " … " when more than MAX_GAP other words separate them. Every number in an item
// (dose, interval, duration, due date's interval) was read from a word inside its `text`. With
// timed segments, `evidence` spans the segments that said any of those words.

import type { Words } from './tokens.ts';

/** Unused words between two used ones beyond which the text is cut into two runs. */
export const MAX_GAP = 6;

/** Character ranges [start, end) in the read text. */
export type Ranges = [number, number][];

export interface Quoted {
  text: string;
  ranges: Ranges;
}

/** The runs of the words at `used` (indices into `w`), quoted from `text`. */
export function quote(text: string, w: Words, used: Iterable<number>): Quoted {
  const sorted = [...new Set(used)].filter((index) => index >= 0 && index < w.words.length).sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const index of sorted) {
    const last = runs.at(-1);
    if (last && index - last[1] - 1 <= MAX_GAP) last[1] = index;
    else runs.push([index, index]);
  }
  const ranges: Ranges = runs.map(([first, last]) => [w.starts[first]!, w.ends[last]!]);
  return { text: ranges.map(([start, end]) => text.slice(start, end)).join(' … '), ranges };
}

export interface PlacedSegment {
  /** Where the segment's text is in the read text. */
  textStart: number;
  textEnd: number;
  start: number;
  end: number;
}

/**
 * The segments in time order and the text read: their texts joined by a space, so every word of
 * the text maps back to the segment that said it (as vitals do: notes/vitals/note-vitals.ts).
 */
export function placeSegments(segments: readonly { start: number; end: number; text: string }[]): {
  text: string;
  placed: PlacedSegment[];
} {
  let text = '';
  const placed: PlacedSegment[] = [];
  const ordered = segments.filter((segment) => segment.text.trim() !== '').sort((a, b) => a.start - b.start);
  for (const segment of ordered) {
    const said = segment.text.trim();
    if (text !== '') text += ' ';
    placed.push({ textStart: text.length, textEnd: text.length + said.length, start: segment.start, end: segment.end });
    text += said;
  }
  return { text, placed };
}

/** The time range of the segments that said the ranges; null without segments. */
export function evidenceOf(ranges: Ranges, placed: readonly PlacedSegment[]): { start: number; end: number } | null {
  if (placed.length === 0) return null;
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of ranges) {
    // Segments are in text order: binary search the first that ends after `from`.
    let low = 0;
    let high = placed.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (placed[middle]!.textEnd <= from) low = middle + 1;
      else high = middle;
    }
    for (let k = low; k < placed.length && placed[k]!.textStart < to; k++) {
      start = Math.min(start, placed[k]!.start);
      end = Math.max(end, placed[k]!.end);
    }
  }
  return Number.isFinite(start) ? { start, end } : null;
}
