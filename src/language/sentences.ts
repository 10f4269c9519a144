// Sentence splitting for pt-BR transcripts. Every non-space character of the input ends up in
// exactly one sentence, which is what lets the sectioner promise "no sentence lost or duplicated".

import { fold } from './fold.ts';
import { DELIMITED_HEADING_ANYWHERE, HEADING_IN_RUN, SPEAKER_LABEL_ANYWHERE } from './headings.ts';

export interface SentenceSpan {
  /** Index of the first character in the source text. */
  start: number;
  /** Index just past the last character. */
  end: number;
  text: string;
  /** Whether a line break separates this sentence from the one before (kept when re-joining). */
  afterLineBreak: boolean;
}

// A period after these words is not the end of a sentence ("Dr. Paulo:", "Obs. animal agitado").
const ABBREVIATIONS = new Set(['dr', 'dra', 'sr', 'sra', 'srta', 'prof', 'profa', 'aprox', 'obs', 'ex', 'etc', 'vol', 'cap', 'comp']);

/** `folded` may be passed by a caller that has already folded `text` (it must be `fold(text)`). */
export function splitSentences(text: string, folded: string = fold(text)): SentenceSpan[] {
  const starts = new Set<number>([0]);
  const addStartAfter = (index: number) => {
    let next = index;
    while (next < text.length && /\s/.test(text[next]!)) next++;
    if (next < text.length) starts.add(next);
  };

  for (const match of folded.matchAll(/[.!?…]+["')\]]*(?=\s|$)/g)) {
    // Only the few characters before the mark: the longest abbreviation is five letters.
    const wordBefore = /(?:^|[^a-z])([a-z]+)$/.exec(folded.slice(Math.max(0, match.index - 8), match.index))?.[1];
    // "E. coli", "S. aureus": a lone letter with a period before a lower-case word is an initial.
    const isInitial =
      match[0] === '.' &&
      wordBefore?.length === 1 &&
      /\p{Lu}/u.test(text[match.index - 1]!) &&
      /^ \p{Ll}/u.test(text.slice(match.index + 1, match.index + 3));
    const isAbbreviation = match[0] === '.' && wordBefore !== undefined && (ABBREVIATIONS.has(wordBefore) || isInitial);
    if (!isAbbreviation) addStartAfter(match.index + match[0].length);
  }
  for (const match of folded.matchAll(/\n/g)) addStartAfter(match.index);
  // Run-on ASR text still says "... exame físico: ..." or "... tutora: ..." mid-line.
  for (const pattern of [DELIMITED_HEADING_ANYWHERE, SPEAKER_LABEL_ANYWHERE]) {
    for (const match of folded.matchAll(pattern)) starts.add(match.index + (match[1]?.length ?? 0));
  }

  for (const start of headingsInLongRuns(
    folded,
    [...starts].sort((a, b) => a - b),
  ))
    starts.add(start);

  const ordered = [...starts].sort((a, b) => a - b);
  const spans: SentenceSpan[] = [];
  for (const [i, start] of ordered.entries()) {
    const rawEnd = ordered[i + 1] ?? text.length;
    const raw = text.slice(start, rawEnd);
    const trimmed = raw.trimEnd();
    if (trimmed.trim() === '') continue;
    const leading = raw.length - raw.trimStart().length;
    const previous = spans.at(-1);
    spans.push({
      start: start + leading,
      end: start + trimmed.length,
      text: trimmed.trim(),
      afterLineBreak: previous !== undefined && text.slice(previous.end, start + leading).includes('\n'),
    });
  }
  return spans;
}

// Below this many words a sentence is left whole even without punctuation.
export const LONG_RUN_WORDS = 20;

/** Sentence starts at strong headings inside runs that punctuation did not break (unpunctuated dictation). */
function headingsInLongRuns(folded: string, starts: number[]): number[] {
  const extra: number[] = [];
  for (const [i, start] of starts.entries()) {
    const end = starts[i + 1] ?? folded.length;
    const run = folded.slice(start, end);
    if (run.trim().split(/\s+/).length < LONG_RUN_WORDS) continue;
    for (const match of run.matchAll(HEADING_IN_RUN)) extra.push(start + match.index + match[1]!.length);
  }
  return extra;
}
