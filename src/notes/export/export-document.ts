import type { NoteRow, SectionRow } from '../notes/notes.repo.ts';

/** What an export shows, free of database rows: the renderers are pure functions of this. */
export interface ExportDocument {
  patient: {
    name: string;
    gender: 'male' | 'female' | 'unidentified';
    /** The consultation day, YYYY-MM-DD (UTC: the service knows no clinic time zone). */
    date: string;
    externalId: string | null;
  };
  sections: { title: string; content: string }[];
}

// The notes are written in Portuguese, so the header a vet reads is too.
const GENDER_LABELS: Record<ExportDocument['patient']['gender'], string> = {
  male: 'Macho',
  female: 'Fêmea',
  unidentified: 'Não informado',
};

/** The header as label/value lines, shared by both formats so TXT and RTF never disagree. */
export function headerLines(document: ExportDocument): { label: string; value: string }[] {
  const { patient } = document;
  return [
    { label: 'Paciente', value: patient.name },
    { label: 'Sexo', value: GENDER_LABELS[patient.gender] },
    { label: 'Data', value: patient.date },
    ...(patient.externalId ? [{ label: 'ID externo', value: patient.externalId }] : []),
  ];
}

/** Lines of a section's text; any newline convention (an editor may have saved CRLF). */
export function linesOf(text: string): string[] {
  return text.split(/\r\n|[\n\r\u2028\u2029]/);
}

export function toExportDocument(note: NoteRow, sections: SectionRow[]): ExportDocument {
  // Display order is the numeric `order` the API exposes (and PATCH may change), not insertion order.
  const ordered = [...sections].sort((a, b) => Number(a.order) - Number(b.order) || a.position - b.position);
  return {
    patient: {
      name: note.name,
      gender: note.gender,
      date: new Date(note.createdAt).toISOString().slice(0, 10),
      externalId: note.externalId,
    },
    sections: ordered.map((section) => ({ title: section.title, content: section.content })),
  };
}
