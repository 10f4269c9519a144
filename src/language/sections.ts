// The note's sections: their labels in canonical order and their pt-BR titles.

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
