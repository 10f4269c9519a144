// One transcript from the transcripts of overlapping chunks (see docs/providers.md#long-audio).
//
// The rule for timed segments: chunk i keeps the segments that start before its cut (the middle of
// its overlap with chunk i+1) and do not reach its last half-second (a segment touching the edge
// was heard cut off); chunk i+1 then contributes only segments whose middle lies after the end of
// the last segment kept so far. A word spoken across the cut is therefore kept once, from the chunk
// that heard it whole, as long as it is shorter than half the overlap.
// Without segments (servers that only answer `json`), the texts are joined by dropping from the
// later chunk the longest run of words that repeats the end of the earlier one.
//
// Neighbouring audio sent without overlap (live parts of different formats, joinAtSeams) has no
// request that hears a word cut at the seam whole: each side hears a half, and a speech model
// completes the half it heard. There the word is kept once by its time and its spelling.

import { type ChunkRange, cutAfter } from './chunk-plan.ts';

/** A timed piece of a transcript, as speech-to-text servers return them. */
export interface TranscriptSegment {
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  text: string;
  /** The server's speaker label (diarization), e.g. `A`; absent when it gives none. */
  speaker?: string;
}

/** What one chunk's request returned, its segment times relative to the chunk's own start. */
export interface ChunkTranscript {
  /** Where the chunk starts in the whole audio, in seconds. */
  offsetSeconds: number;
  text: string;
  language: string | null;
  segments: TranscriptSegment[];
  model?: string | null;
}

export interface StitchedTranscript {
  text: string;
  language: string | null;
  segments: TranscriptSegment[];
}

/** A segment this close to a chunk's end (s) is taken as cut off there. */
const EDGE_SECONDS = 0.5;
/** The longest repeated run of words looked for between two texts without segments. */
const MAX_TEXT_OVERLAP_WORDS = 60;
/** How near a seam without overlap (s) a word on each side must be to count as one word cut there. */
const SEAM_SECONDS = 1;

export function stitch(chunks: ChunkRange[], transcripts: ChunkTranscript[]): StitchedTranscript {
  const language = transcripts.find((transcript) => transcript.language)?.language ?? null;
  const timed = transcripts.every((transcript) => transcript.segments.length > 0 || transcript.text.trim() === '');
  if (!timed) return { text: joinTexts(transcripts.map((transcript) => transcript.text)), language, segments: [] };

  const segments: TranscriptSegment[] = [];
  let previous: TranscriptSegment[] = [];
  let previousLabels = new Map<string, string>();
  for (const [index, transcript] of transcripts.entries()) {
    const range = chunks[index]!;
    const cut = cutAfter(chunks, index);
    const edge = index === chunks.length - 1 ? Number.POSITIVE_INFINITY : range.end - EDGE_SECONDS;
    const absolute = transcript.segments.map((segment) => ({
      ...segment,
      start: round(segment.start + transcript.offsetSeconds),
      end: round(segment.end + transcript.offsetSeconds),
    }));
    const speakers = relabel(previous, previousLabels, absolute, segments);
    const keptUntil = segments.at(-1)?.end ?? Number.NEGATIVE_INFINITY;
    for (const segment of absolute) {
      const middle = (segment.start + segment.end) / 2;
      if (middle <= keptUntil || segment.start >= cut || segment.end > edge) continue;
      const speaker = segment.speaker === undefined ? undefined : speakers.get(segment.speaker);
      // Times never go backwards, even when two servers' estimates of one word disagree slightly.
      const start = Math.max(segment.start, segments.at(-1)?.end ?? 0);
      segments.push({ start, end: Math.max(start, segment.end), text: segment.text, ...(speaker ? { speaker } : {}) });
    }
    previous = absolute;
    previousLabels = speakers;
  }
  return { text: segmentsText(segments), language, segments };
}

/** The transcript text: segments joined, one `A: ...` line per speaker turn when there are speakers. */
export function segmentsText(segments: TranscriptSegment[]): string {
  if (!segments.some((segment) => segment.speaker)) return segments.map((segment) => segment.text).join(' ');
  const lines: string[] = [];
  let speaker: string | undefined;
  for (const segment of segments) {
    if (lines.length > 0 && segment.speaker === speaker) lines[lines.length - 1] += ` ${segment.text}`;
    else lines.push(segment.speaker ? `${segment.speaker}: ${segment.text}` : segment.text);
    speaker = segment.speaker;
  }
  return lines.join('\n');
}

/**
 * Speaker labels are per request: the server's "A" in one chunk need not be its "A" in the next.
 * Labels of the later chunk are renamed after the earlier chunk's label that talks at the same
 * time in their overlap (most shared seconds first). A single label left over takes the single
 * known speaker left over; any other label not heard in the overlap gets a letter not yet used.
 */
function relabel(
  earlier: TranscriptSegment[],
  earlierLabels: Map<string, string>,
  later: TranscriptSegment[],
  kept: TranscriptSegment[],
): Map<string, string> {
  const labels = new Map<string, string>();
  const laterLabels = [...new Set(later.flatMap((segment) => (segment.speaker ? [segment.speaker] : [])))];
  if (laterLabels.length === 0) return labels;
  if (earlier.length === 0) {
    for (const label of laterLabels) labels.set(label, label);
    return labels;
  }
  const shared: { from: string; to: string; seconds: number }[] = [];
  for (const a of later) {
    for (const b of earlier) {
      const seconds = Math.min(a.end, b.end) - Math.max(a.start, b.start);
      // The earlier chunk's labels were renamed already; compare with the names it was given.
      const to = b.speaker ? earlierLabels.get(b.speaker) : undefined;
      if (seconds > 0 && a.speaker && to) shared.push({ from: a.speaker, to, seconds });
    }
  }
  const totals = new Map<string, { from: string; to: string; seconds: number }>();
  for (const pair of shared) {
    const key = `${pair.from}\0${pair.to}`;
    const total = totals.get(key) ?? { ...pair, seconds: 0 };
    total.seconds += pair.seconds;
    totals.set(key, total);
  }
  const used = new Set<string>();
  for (const pair of [...totals.values()].sort((x, y) => y.seconds - x.seconds)) {
    if (labels.has(pair.from) || used.has(pair.to)) continue;
    labels.set(pair.from, pair.to);
    used.add(pair.to);
  }
  const known = new Set(kept.flatMap((segment) => (segment.speaker ? [segment.speaker] : [])));
  const unmatched = laterLabels.filter((label) => !labels.has(label));
  const unclaimed = [...known].filter((label) => !used.has(label));
  // One new voice and one known speaker not heard in the overlap (the usual vet and tutor): the same person.
  if (unmatched.length === 1 && unclaimed.length === 1) labels.set(unmatched[0]!, unclaimed[0]!);
  const taken = new Set([...known, ...used]);
  for (const label of laterLabels) {
    if (labels.has(label)) continue;
    const fresh = taken.has(label) ? nextFreeLabel(taken) : label;
    labels.set(label, fresh);
    taken.add(fresh);
  }
  return labels;
}

function nextFreeLabel(taken: Set<string>): string {
  for (let n = 0; ; n++) {
    const label = n < 26 ? String.fromCharCode(65 + n) : `S${n + 1}`;
    if (!taken.has(label)) return label;
  }
}

/**
 * Transcripts of neighbouring stretches of one audio, each sent alone (no overlap), put one after
 * the other; their times are already the whole audio's. `seams[i]` is where transcript i+1 starts,
 * or null where the audio between them is missing (nothing there can have been cut in two).
 *
 * A word cut by a seam is heard in part on each side, and each side's model writes the whole word:
 * when the last word before the seam belongs to a segment ending at most SEAM_SECONDS before it, the
 * first word after it to a segment starting at most SEAM_SECONDS after it, and the two are the same
 * word (case, accents and punctuation aside), the later one is dropped. What this cannot catch: a
 * cut word that neither side wrote (lost), or that the two sides wrote differently ("gato" and
 * "gatos", or a half heard as another word), and transcripts without segments (joined by
 * joinTexts, which drops a repeated run of two words or more, never a single word). What it gets
 * wrong: one word said twice on purpose, once just before the seam and once just after it, is kept
 * once.
 */
export function joinAtSeams(transcripts: StitchedTranscript[], seams: (number | null)[]): StitchedTranscript {
  const language = transcripts.find((transcript) => transcript.language)?.language ?? null;
  const timed = transcripts.every((transcript) => transcript.segments.length > 0 || transcript.text.trim() === '');
  if (!timed) return { text: joinTexts(transcripts.map((transcript) => transcript.text)), language, segments: [] };
  const segments: TranscriptSegment[] = [];
  for (const [index, transcript] of transcripts.entries()) {
    const seam = index > 0 ? (seams[index - 1] ?? null) : null;
    const before = segments.at(-1);
    const [after, ...rest] = transcript.segments;
    if (seam === null || !before || !after || before.end < seam - SEAM_SECONDS || after.start > seam + SEAM_SECONDS) {
      segments.push(...transcript.segments);
      continue;
    }
    const last = normal(before.text.split(/\s+/).filter(Boolean).at(-1) ?? '');
    const [first = '', ...others] = after.text.split(/\s+/).filter(Boolean);
    if (last === '' || normal(first) !== last) {
      segments.push(...transcript.segments);
      continue;
    }
    // The same word on both sides of the seam: the earlier side's copy stays.
    if (others.length > 0) segments.push({ ...after, start: Math.max(after.start, before.end), text: others.join(' ') });
    segments.push(...rest);
  }
  return { text: segmentsText(segments), language, segments };
}

/** Joins chunk texts, dropping the words a later text repeats from the end of the text so far. */
export function joinTexts(texts: string[]): string {
  let words: string[] = [];
  for (const text of texts) {
    const next = text.split(/\s+/).filter(Boolean);
    const repeated = longestRepeat(words, next);
    words = words.concat(next.slice(repeated));
  }
  return words.join(' ');
}

const normal = (word: string) =>
  word
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^\p{L}\p{N}]/gu, '');

function longestRepeat(before: string[], after: string[]): number {
  const limit = Math.min(MAX_TEXT_OVERLAP_WORDS, before.length, after.length);
  for (let n = limit; n >= 2; n--) {
    let same = true;
    for (let i = 0; i < n && same; i++) same = normal(before[before.length - n + i]!) === normal(after[i]!);
    if (same) return n;
  }
  return 0;
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;
