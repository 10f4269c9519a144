// A note's vitals: found in its transcript (timed by the segments that said them), one entry per
// distinct value of a code, in a fixed order of codes, each flagged against the species' ranges.

import { type Species, VITAL_CODES, type Vital } from '../store/vitals.schemas.ts';
import { findVitals } from './extract.ts';
import { flagOf, type SpeciesRanges } from './reference-ranges.ts';

export type UnflaggedVital = Omit<Vital, 'flag'>;

interface TranscriptText {
  text: string;
  segments: { start: number; end: number; text: string }[];
}

/** Same code, value, unit and comparator: said twice, shown once (the first time it was said). */
export function distinctVitals<T extends UnflaggedVital>(vitals: T[]): T[] {
  const seen = new Set<string>();
  const kept = vitals.filter((vital) => {
    const key = JSON.stringify([vital.code, vital.value, vital.unit, vital.comparator]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // Stable: within a code, the order they were said in.
  return kept.sort((a, b) => VITAL_CODES.indexOf(a.code) - VITAL_CODES.indexOf(b.code));
}

/** The vitals of a text without times (an edited section): evidence null. */
export function vitalsOfText(text: string): UnflaggedVital[] {
  return distinctVitals(
    findVitals(text).map(({ code, value, unit, comparator, start, end }) => ({
      code,
      value,
      unit: unit as Vital['unit'],
      comparator,
      text: text.slice(start, end),
      evidence: null,
    })),
  );
}

/**
 * The vitals of a transcript. With timed segments, the text read is the segments' in time order,
 * so each vital's words map back to the segments that said them (a vital whose words run over two
 * segments spans both); without segments, the transcript's text, and no evidence.
 */
export function vitalsOfTranscript(transcript: TranscriptText): UnflaggedVital[] {
  const segments = [...transcript.segments].filter((segment) => segment.text.trim() !== '').sort((a, b) => a.start - b.start);
  if (segments.length === 0) return vitalsOfText(transcript.text);
  let text = '';
  const placed = segments.map((segment) => {
    const start = text.length;
    text += `${segment.text.trim()} `;
    return { start, end: start + segment.text.trim().length, segment };
  });
  return distinctVitals(
    findVitals(text).map(({ code, value, unit, comparator, start, end }) => {
      const saying = placed.filter((place) => place.start < end && start < place.end);
      return {
        code,
        value,
        unit: unit as Vital['unit'],
        comparator,
        text: text.slice(start, end),
        evidence: {
          start: Math.min(...saying.map((place) => place.segment.start)),
          end: Math.max(...saying.map((place) => place.segment.end)),
        },
      };
    }),
  );
}

export function flagVitals(vitals: UnflaggedVital[], species: Species | null, ranges: Record<Species, SpeciesRanges>): Vital[] {
  return vitals.map((vital) => ({ ...vital, flag: flagOf(vital, species, ranges) }));
}
