// Turning a transcript into the note's sections, behind one small interface.

import type { Section } from '../../language/sections.ts';

export { SECTION_LABELS, SECTION_TITLES, type Section, type SectionLabel } from '../../language/sections.ts';

export interface SectioningInput {
  text: string;
  segments: { start: number; end: number; text: string }[];
  language: string | null;
}

export interface Sectioner {
  readonly name: string;
  /**
   * Sections in display order (the canonical label order), only those with content. Every
   * sentence of the transcript lands in exactly one section. Throws ProviderError on failure.
   */
  section(input: SectioningInput, signal: AbortSignal): Promise<Section[]>;
}
