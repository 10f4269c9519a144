// Turning a transcript into the note's sections, behind one small interface.

export const SECTION_LABELS = ['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'observations', 'follow_up'] as const;
export type SectionLabel = (typeof SECTION_LABELS)[number];

export const SECTION_TITLES: Record<SectionLabel, string> = {
  anamnesis: 'Anamnese',
  physical_exam: 'Exame Físico',
  diagnosis: 'Diagnóstico',
  treatment: 'Tratamento',
  observations: 'Observações',
  follow_up: 'Seguimento',
};

export interface Section {
  label: SectionLabel;
  title: string;
  content: string;
}

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
