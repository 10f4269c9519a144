import { toTimestamp } from '../../platform/http/schemas.ts';
import type { NoteStyle, ReviewFlag } from '../../providers/drafting/port.ts';
import { SECTION_TITLES } from '../../providers/sectioning/port.ts';
import type { NoteRow, SectionRow } from '../store/notes.repo.ts';
import type { Plan } from '../store/plan.schemas.ts';
import type { AmendmentRow, SignatureRow } from '../store/record.repo.ts';
import type { Species, Vital } from '../store/vitals.schemas.ts';
import { templateOfNote } from '../templates/builtin-templates.ts';
import { SPECIES_LABELS } from './vitals-block.ts';

/** What an export shows, free of database rows: the renderers are pure functions of this. */
export interface ExportDocument {
  patient: {
    name: string;
    gender: 'male' | 'female' | 'unidentified';
    /** The consultation day, YYYY-MM-DD: the note's visit date (notes before visit dates: the UTC day it was created). */
    date: string;
    externalId: string | null;
  };
  /** `id` lets the record show each amendment in place, under the section it changed. */
  sections: { id?: string; title: string; content: string }[];
  /** When the note was made (ISO timestamp, UTC): the record dates each consultation with it. */
  createdAt?: string;
  /** The consultation day when the upload named one (`YYYY-MM-DD`); null → the day of `createdAt`. */
  visitDate?: string | null;
  /** What the veterinarian decided: the receituário blocks after the sections (plan-blocks.ts); null or absent → none. */
  plan?: Plan | null;
  /** Absent or `verbatim`: no style line in the header (exports before clinical notes looked so). */
  style?: NoteStyle;
  /** What the veterinarian must review: shown as a "Revisar" block before the sections. */
  reviewFlags?: ReviewFlag[];
  /** A made-up (sandbox) transcript: the export opens with SIMULATED_BANNER. */
  simulated?: boolean;
  /** Title of each section label of the note's template, for the flags (a flagged section may be absent). */
  sectionTitles?: Record<string, string>;
  /** Shown as a "Sinais vitais" block before the sections (vitals-block.ts), and the species in the header. */
  species?: Species | null;
  vitals?: Vital[];
  /** The clinical record (notes/record/): unsigned → the export says it is a draft; absent → nothing said. */
  record?: ExportRecord;
}

/** The signature and amendments an export shows; dates as the API shows them (UTC). */
export interface ExportRecord {
  signature: { name: string; license: string; signedAt: string; sha256: string } | null;
  /** The hash of the note as it stands: the last amendment's, or the signature's. */
  currentSha256: string | null;
  amendments: {
    /** The section it changed (absent in documents made before the record showed amendments in place). */
    sectionId?: string;
    sectionTitle: string;
    reason: string;
    name: string;
    license: string;
    createdAt: string;
    content: string;
    previousContent: string;
  }[];
}

/** The first line of every export of a simulated note, above the header, in both formats. */
export const SIMULATED_BANNER = 'SIMULADO — transcrição de teste';

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
    ...(document.species ? [{ label: 'Espécie', value: SPECIES_LABELS[document.species] }] : []),
    ...(patient.externalId ? [{ label: 'ID externo', value: patient.externalId }] : []),
    ...(document.style === 'clinical' ? [{ label: 'Estilo', value: 'Clínico (redigido por modelo de linguagem)' }] : []),
  ];
}

export const REVIEW_TITLE = 'Revisar';

/**
 * The "Revisar" block as lines, one per flagged sentence (its missing tokens together) or per
 * drafting problem; empty when nothing needs review. Shared by both formats.
 */
export function reviewLines(document: ExportDocument): string[] {
  const groups = new Map<string, { flag: ReviewFlag; tokens: string[] }>();
  for (const flag of document.reviewFlags ?? []) {
    const key = JSON.stringify([flag.reason, flag.section, flag.sentence]);
    const group = groups.get(key) ?? { flag, tokens: [] };
    if (flag.token !== null && !group.tokens.includes(flag.token)) group.tokens.push(flag.token);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ flag, tokens }) => {
    const titles: Record<string, string> = document.sectionTitles ?? SECTION_TITLES;
    const where = flag.section ? `${titles[flag.section] ?? flag.section}: "${flag.sentence ?? ''}" — ` : '';
    const quoted = tokens.map((token) => `"${token}"`).join(', ');
    switch (flag.reason) {
      case 'ungrounded':
        return `- ${where}${quoted} não ${tokens.length > 1 ? 'constam' : 'consta'} nas falas citadas; frase retirada da nota.`;
      case 'no_citation':
        return `- ${where}nenhuma fala da transcrição citada; frase retirada da nota.`;
      case 'invalid_citation':
        return `- ${where}cita a linha ${quoted}, que não existe na transcrição.`;
      case 'vital_mismatch':
        return `- ${where}${quoted} difere do valor dito na consulta (ver Sinais vitais).`;
      case 'plan_mismatch':
        return `- ${where}${quoted} difere do plano dito na consulta (ver Prescrição).`;
      case 'possible_drug_misrecognition':
        return `- ${quoted} na transcrição pode ser "${flag.suggestion ?? ''}" mal reconhecido; confira o medicamento dito.`;
      case 'simulated_transcript':
        return '- Transcrição simulada (provedor sandbox): o texto não foi reconhecido do áudio e nada nesta nota vem da consulta.';
      case 'drafting_unavailable':
        return '- O modelo de redação não estava disponível: nota no estilo literal (frases da transcrição sob as seções).';
      default:
        return '- A resposta do modelo de redação não pôde ser usada: nota no estilo literal (frases da transcrição sob as seções).';
    }
  });
}

/** Lines of a section's text; any newline convention (an editor may have saved CRLF). */
export function linesOf(text: string): string[] {
  return text.split(/\r\n|[\n\r\u2028\u2029]/);
}

/** The day an export is dated and named by: the visit date, else the day the note was created (UTC). */
export function exportDay(note: Pick<NoteRow, 'visitDate' | 'createdAt'>): string {
  return note.visitDate ?? new Date(note.createdAt).toISOString().slice(0, 10);
}

export function toExportDocument(note: NoteRow, sections: SectionRow[]): ExportDocument {
  // Display order is the numeric `order` the API exposes (and PATCH may change), not insertion order.
  const ordered = [...sections].sort((a, b) => Number(a.order) - Number(b.order) || a.position - b.position);
  return {
    patient: {
      name: note.name,
      gender: note.gender,
      date: exportDay(note),
      externalId: note.externalId,
    },
    sections: ordered.map((section) => ({ id: section.id, title: section.title, content: section.content })),
    createdAt: toTimestamp(note.createdAt),
    visitDate: note.visitDate,
    plan: note.plan as Plan | null,
    style: note.noteStyle,
    reviewFlags: note.reviewFlags as ReviewFlag[],
    species: note.species as Species | null,
    vitals: note.vitals as Vital[],
    sectionTitles: Object.fromEntries(templateOfNote(note).sections.map((section) => [section.label, section.title])),
    simulated: note.simulated,
  };
}

export const DRAFT_MARK = 'Rascunho — não assinado';
export const SIGNATURE_TITLE = 'Assinatura';

/** The signature and amendments of a note as an export shows them; a draft's (no signature) is empty. */
export function toExportRecord(signature: SignatureRow | undefined, amendments: AmendmentRow[], sections: SectionRow[]): ExportRecord {
  if (!signature) return { signature: null, currentSha256: null, amendments: [] };
  const titles = new Map(sections.map((section) => [section.id, section.title]));
  return {
    signature: {
      name: signature.signedByName,
      license: signature.signedByLicense,
      signedAt: toTimestamp(signature.signedAt),
      sha256: signature.contentSha256,
    },
    currentSha256: amendments.at(-1)?.contentSha256 ?? signature.contentSha256,
    amendments: amendments.map((amendment) => ({
      sectionId: amendment.sectionId,
      sectionTitle: titles.get(amendment.sectionId) ?? amendment.label,
      reason: amendment.reason,
      name: amendment.signedByName,
      license: amendment.signedByLicense,
      createdAt: toTimestamp(amendment.createdAt),
      content: amendment.content,
      previousContent: amendment.previousContent,
    })),
  };
}

/** `2026-11-28T14:05:09Z` → `28/11/2026 14:05 UTC`: how a Brazilian reader writes a date. */
export function readableDate(timestamp: string): string {
  const [date = '', time = ''] = timestamp.replace('Z', '').split('T');
  const [year, month, day] = date.split('-');
  return `${day}/${month}/${year} ${time.slice(0, 5)} UTC`;
}

/** An unsigned note's export says so under its header, before anything clinical. */
export function draftMark(document: ExportDocument): string | null {
  return document.record && !document.record.signature ? DRAFT_MARK : null;
}

/**
 * A signed note's record as blocks of lines, shared by both formats, after the sections: each
 * amendment ("Adendo n — section": reason, author, date, new and replaced text), then the signature
 * ("Assinado por … — CRMV … em …" and the hash of the note as it stands). None for a draft.
 */
export function recordBlocks(document: ExportDocument): { title: string; lines: string[] }[] {
  const record = document.record;
  if (!record?.signature) return [];
  const { signature } = record;
  const amendments = record.amendments.map((amendment, index) => ({
    title: `Adendo ${index + 1} — ${amendment.sectionTitle}`,
    lines: [
      `Motivo: ${amendment.reason}`,
      `Por: ${amendment.name} — ${amendment.license} em ${readableDate(amendment.createdAt)}`,
      'Novo texto:',
      ...linesOf(amendment.content.trim()),
      'Texto anterior:',
      ...linesOf(amendment.previousContent.trim()),
    ],
  }));
  const hashes =
    record.currentSha256 && record.currentSha256 !== signature.sha256
      ? [
          `SHA-256 na assinatura: ${signature.sha256}`,
          `SHA-256 atual (após ${record.amendments.length} adendo(s)): ${record.currentSha256}`,
        ]
      : [`SHA-256: ${signature.sha256}`];
  return [
    ...amendments,
    {
      title: SIGNATURE_TITLE,
      lines: [`Assinado por ${signature.name} — ${signature.license} em ${readableDate(signature.signedAt)}`, ...hashes],
    },
  ];
}
