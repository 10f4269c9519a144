import { PassThrough } from 'node:stream';
import {
  DRAFT_MARK,
  type ExportDocument,
  headerLines,
  linesOf,
  REVIEW_TITLE,
  readableDate,
  reviewLines,
  SIMULATED_BANNER,
} from '../export/export-document.ts';
import { PLAN_TITLE, planBlocks } from '../export/plan-blocks.ts';
import { SPECIES_LABELS, VITALS_TITLE, vitalLines } from '../export/vitals-block.ts';
import type { RecordInput, RenderedRecord } from './record-input.ts';

// The record as plain text, in the PDF's order (docs/notes-prontuario.md, "TXT"): a heading (clinic,
// patient, tutor, the record's hash), then every note under an "Atendimento n de N" line — its header,
// state, review, vitals, sections with each amendment in place under the section it changed (the
// replaced text quoted, the new text, reason, who, when), receituário, signature. Written note by
// note as they are read.

const GENDER = { male: 'Macho', female: 'Fêmea', unidentified: 'Não informado' } as const;
const underlined = (title: string, mark = '-') => `${title}\n${mark.repeat(Math.max([...title].length, 3))}`;
const indented = (text: string, prefix = '    ') => linesOf(text.trim()).map((line) => `${prefix}${line}`);

function headingText({ heading, sha256 }: RecordInput): string {
  const { clinic, patient } = heading;
  const clinicLines = clinic
    ? [
        clinic.name,
        clinic.address,
        clinic.phone ? `Telefone: ${clinic.phone}` : null,
        clinic.crmv_registration ? `Registro: ${clinic.crmv_registration}` : null,
      ]
    : [];
  const rows: [string, string | null][] = [
    ['Paciente', patient.name],
    ['Espécie', patient.species ? SPECIES_LABELS[patient.species] : null],
    ['Sexo', GENDER[patient.gender]],
    ['ID externo', patient.externalId],
    ['Tutor(a)', patient.tutor],
    ['Atendimentos', String(heading.notes)],
    ['Emitido em', readableDate(heading.issuedAt)],
    ['SHA-256 do prontuário', sha256],
  ];
  const lines = [
    ...clinicLines.filter((line) => line !== null),
    ...(clinic ? [''] : []),
    underlined('PRONTUÁRIO', '='),
    ...rows.filter(([, value]) => value !== null).map(([label, value]) => `${label}: ${value}`),
  ];
  return `${lines.join('\n')}\n`;
}

type Amendment = NonNullable<ExportDocument['record']>['amendments'][number];

function amendmentLines(amendment: Amendment, position: number): string[] {
  return [
    `  [Adendo ${position} — ${readableDate(amendment.createdAt)} — ${amendment.name} (${amendment.license})]`,
    `  Motivo: ${amendment.reason}`,
    '  Texto anterior (substituído):',
    ...indented(`"${amendment.previousContent.trim()}"`),
    '  Texto novo:',
    ...indented(amendment.content),
  ];
}

/** One note of the record, as its blocks separated by blank lines. */
export function noteText(document: ExportDocument, index: number, total: number): string {
  const record = document.record;
  const signature = record?.signature ?? null;
  const when = document.createdAt ? readableDate(document.createdAt) : document.patient.date;
  const state = signature
    ? record?.amendments.length
      ? `Assinado, com ${record.amendments.length} ${record.amendments.length === 1 ? 'adendo' : 'adendos'}`
      : 'Assinado'
    : DRAFT_MARK.toUpperCase();
  const blocks: string[] = [underlined(`Atendimento ${index} de ${total} — ${when}`, '=')];
  if (document.simulated) blocks.push(SIMULATED_BANNER);
  blocks.push([...headerLines(document).map(({ label, value }) => `${label}: ${value}`), `Situação: ${state}`].join('\n'));
  const review = reviewLines(document);
  if (review.length > 0) blocks.push([underlined(REVIEW_TITLE), ...review].join('\n'));
  const vitals = vitalLines(document.vitals).map(({ line }) => line);
  if (vitals.length > 0) blocks.push([underlined(VITALS_TITLE), ...vitals].join('\n'));
  const placed = new Set<number>();
  for (const section of document.sections) {
    const lines = [underlined(section.title), ...(section.content.trim() ? linesOf(section.content.trim()) : [])];
    record?.amendments.forEach((amendment, at) => {
      if (section.id === undefined || amendment.sectionId !== section.id) return;
      placed.add(at);
      lines.push(...amendmentLines(amendment, at + 1));
    });
    blocks.push(lines.join('\n'));
  }
  record?.amendments.forEach((amendment, at) => {
    if (!placed.has(at)) blocks.push([underlined(amendment.sectionTitle), ...amendmentLines(amendment, at + 1)].join('\n'));
  });
  const plan = planBlocks(document.plan).flatMap((group) => [`${group.title}:`, ...group.lines]);
  if (plan.length > 0) blocks.push([underlined(PLAN_TITLE), ...plan].join('\n'));
  if (signature) {
    const current = record?.currentSha256 && record.currentSha256 !== signature.sha256 ? record.currentSha256 : null;
    blocks.push(
      [
        underlined('Assinatura'),
        `Assinado por ${signature.name} — ${signature.license} em ${readableDate(signature.signedAt)}`,
        `SHA-256 na assinatura: ${signature.sha256}`,
        ...(current ? [`SHA-256 atual (após ${record?.amendments.length} adendo(s)): ${current}`] : []),
      ].join('\n'),
    );
  } else {
    blocks.push('Rascunho: não assinado por veterinário; não vale como registro assinado.');
  }
  return `${blocks.join('\n\n')}\n`;
}

export async function recordTxt(input: RecordInput): Promise<RenderedRecord> {
  const body = new PassThrough();
  body.write(headingText(input));
  const drawn = (async () => {
    let index = 0;
    for await (const { document } of input.entries()) {
      index += 1;
      body.write(`\n${noteText(document, index, input.heading.notes)}`);
    }
    body.end();
  })().catch((error: unknown) => {
    body.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  });
  return { body, drawn };
}
