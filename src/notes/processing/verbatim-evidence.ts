// Time ranges for a verbatim note: a verbatim section is made of the transcript's own sentences,
// so a timed segment belongs to every section that contains one of its sentences word for word.
// Headings the sectioner dropped ("Anamnese:") are dropped here too before comparing.

import { splitSentences } from '../../language/sentences.ts';
import type { TimeRange } from '../../providers/drafting/port.ts';

// Shorter pieces ("Ok.", "Sim.") appear in too many places to say where a segment went.
const MIN_PIECE_LENGTH = 8;

const normalise = (text: string) => text.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();

/** The sentence, and the sentence without a leading spoken heading or speaker label. */
function variants(sentence: string): string[] {
  const whole = normalise(sentence);
  const afterLabel = whole.replace(/^[^:]{1,40}:\s*/, '');
  return [...new Set([whole, afterLabel])].filter((variant) => variant.length >= MIN_PIECE_LENGTH);
}

export function verbatimEvidence(
  sections: readonly { content: string }[],
  segments: { start: number; end: number; text: string }[],
): TimeRange[][] {
  const contents = sections.map((section) => normalise(section.content));
  const evidence = sections.map(() => [] as TimeRange[]);
  for (const segment of [...segments].sort((a, b) => a.start - b.start)) {
    const pieces = splitSentences(segment.text).flatMap((sentence) => variants(sentence.text));
    contents.forEach((content, index) => {
      if (pieces.some((piece) => content.includes(piece))) evidence[index]!.push({ start: segment.start, end: segment.end });
    });
  }
  return evidence;
}
