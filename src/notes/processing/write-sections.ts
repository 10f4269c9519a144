// The sections of a note in its style and template: `verbatim` through the sectioner (each sentence
// placed by its base label in the template section that gathers it), `clinical` through the drafter
// (asked for the template's sections with their instructions). A clinical draft that cannot be used
// (server unreachable after retries, unusable answer, no drafter configured any more) leaves the
// note verbatim with a flag saying why: the model's failure never fails the note.

import type { Drafter, NoteStyle, PreviousVisit, ReviewFlag, TemplateSection } from '../../providers/drafting/port.ts';
import type { Sectioner, SectioningInput } from '../../providers/sectioning/port.ts';
import type { WrittenContent } from '../store/notes.repo.ts';
import { placeInTemplate } from './place-in-template.ts';
import { verbatimEvidence } from './verbatim-evidence.ts';

export interface WrittenNote extends WrittenContent {
  /** Why a clinical note came out verbatim, for the log (a code and words without patient text). */
  fallback: { code: string; message: string } | null;
}

export async function writeSections(
  style: NoteStyle,
  transcript: SectioningInput,
  template: readonly TemplateSection[],
  providers: { sectioner: Sectioner; drafter: Drafter | null },
  signal: AbortSignal,
  /** The patient's last signed visit, context for the drafter only (never for the verbatim sectioner). */
  previous: PreviousVisit | null = null,
): Promise<WrittenNote> {
  let reviewFlags: ReviewFlag[] = [];
  let fallback: WrittenNote['fallback'] = null;
  if (style === 'clinical') {
    if (providers.drafter) {
      const outcome = await providers.drafter.draft({ ...transcript, sections: template, previous }, signal);
      if (outcome.ok) return { style: 'clinical', sections: outcome.sections, reviewFlags: outcome.flags, fallback: null };
      reviewFlags = outcome.flags;
      fallback = { code: outcome.code, message: outcome.message };
    } else {
      reviewFlags = [{ section: null, sentence: null, reason: 'drafting_unavailable', token: null }];
      fallback = { code: 'DRAFTING_NOT_CONFIGURED', message: 'no drafting provider is configured (DRAFTING_PROVIDER=none)' };
    }
  }
  const sections = placeInTemplate(transcript.text, await providers.sectioner.section(transcript, signal), template);
  const evidence = verbatimEvidence(sections, transcript.segments);
  return { style: 'verbatim', sections: sections.map((section, i) => ({ ...section, evidence: evidence[i]! })), reviewFlags, fallback };
}

/**
 * A note written from a made-up transcript (the sandbox) says so: `simulated`, and a
 * `simulated_transcript` flag first among those the veterinarian reviews before signing.
 */
export function markedSimulated<T extends WrittenContent>(written: T): T {
  const flag: ReviewFlag = { section: null, sentence: null, reason: 'simulated_transcript', token: null };
  return { ...written, simulated: true, reviewFlags: [flag, ...written.reviewFlags] };
}
