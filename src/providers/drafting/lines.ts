// The transcript as the model sees it: numbered lines "[n] text", n from 1 in time order. The
// lines are the provider's timed segments; a transcript without segments is cut into its sentences
// (which have no times, so their evidence is empty).

import { splitSentences } from '../../language/sentences.ts';
import type { DraftingInput, TimeRange } from './port.ts';

export interface NumberedLine {
  /** 1-based, as cited by the model. */
  n: number;
  text: string;
  /** When the line came from a timed segment. */
  time: TimeRange | null;
}

export function numberedLines(input: DraftingInput): NumberedLine[] {
  const segments = input.segments.filter((segment) => segment.text.trim() !== '');
  if (segments.length > 0) {
    return [...segments]
      .sort((a, b) => a.start - b.start)
      .map((segment, index) => ({
        n: index + 1,
        text: segment.text.replace(/\s+/g, ' ').trim(),
        time: { start: segment.start, end: segment.end },
      }));
  }
  return splitSentences(input.text).map((sentence, index) => ({
    n: index + 1,
    text: sentence.text.replace(/\s+/g, ' ').trim(),
    time: null,
  }));
}

/** "[1] text\n[2] text": the user message of the request. */
export function renderLines(lines: NumberedLine[]): string {
  return lines.map((line) => `[${line.n}] ${line.text}`).join('\n');
}
