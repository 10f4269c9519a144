// The review flags of the drug names a transcript may have misheard (lexicon/misheard-drugs.ts):
// one `possible_drug_misrecognition` per place, with the words as said, the drug they resemble and
// when they were said. The transcript itself is never changed.

import type { ReviewFlag } from '../../providers/drafting/port.ts';
import { evidenceOf, type PlacedSegment, placeSegments, quote } from './evidence.ts';
import { MAX_CHARACTERS, type TranscriptText } from './extract-plan.ts';
import { misheardDrugs } from './lexicon/misheard-drugs.ts';
import { wordsOf } from './tokens.ts';

/** Words either side of the misheard ones quoted in the flag's `sentence`, for the vet to read it in context. */
const CONTEXT_WORDS = 5;

/** `knownNames`: the clinic's drug names and any other name the transcript may say (the patient's). */
export function misheardDrugFlags(transcript: TranscriptText, knownNames: readonly string[]): ReviewFlag[] {
  const timed = transcript.segments.some((segment) => segment.text.trim() !== '');
  const { text: joined, placed } = timed ? placeSegments(transcript.segments) : { text: transcript.text, placed: [] as PlacedSegment[] };
  const text = joined.slice(0, MAX_CHARACTERS);
  const w = wordsOf(text);
  return misheardDrugs(w, knownNames).map((found) => {
    const said = text.slice(w.starts[found.first]!, w.ends[found.end - 1]!);
    const first = Math.max(0, found.first - CONTEXT_WORDS);
    const last = Math.min(w.words.length, found.end + CONTEXT_WORDS) - 1;
    return {
      section: null,
      sentence: text.slice(w.starts[first]!, w.ends[last]!),
      reason: 'possible_drug_misrecognition',
      token: said,
      said,
      suggestion: found.suggestion.name,
      evidence: evidenceOf(quote(text, w, [found.first, found.end - 1]).ranges, placed),
    };
  });
}
