// The clinical drafter's vitals checked against the transcript's: a drafted sentence that states
// a vital (temperature, heart rate, ...) with a value the consultation did not say for that code is
// flagged `vital_mismatch` for the vet. The sentence stays in the note: its numbers passed the
// grounding against the lines it cites, yet disagree with the value read from the whole
// transcript (a recheck, a misheard line, another animal); the vet decides. A drafted vital of a
// code the transcript's extraction did not find is left to that grounding.

import { splitSentences } from '../../language/sentences.ts';
import type { ReviewFlag } from '../../providers/drafting/port.ts';
import { findVitals } from '../vitals/extract.ts';
import type { UnflaggedVital } from '../vitals/note-vitals.ts';
import type { WrittenNote } from './write-sections.ts';

const sameValue = (a: number | string, b: number | string) =>
  typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) < 1e-6 : a === b;

export function groundDraftedVitals(written: WrittenNote, said: UnflaggedVital[]): WrittenNote {
  if (written.style !== 'clinical') return written;
  const flags: ReviewFlag[] = [];
  for (const section of written.sections) {
    for (const sentence of splitSentences(section.content)) {
      for (const drafted of findVitals(sentence.text)) {
        const ofCode = said.filter((vital) => vital.code === drafted.code);
        if (ofCode.length === 0) continue;
        const matches = ofCode.some(
          (vital) => sameValue(vital.value, drafted.value) && vital.unit === drafted.unit && vital.comparator === drafted.comparator,
        );
        if (!matches) {
          flags.push({
            section: section.label,
            sentence: sentence.text,
            reason: 'vital_mismatch',
            token: sentence.text.slice(drafted.start, drafted.end),
          });
        }
      }
    }
  }
  return flags.length === 0 ? written : { ...written, reviewFlags: [...written.reviewFlags, ...flags] };
}
