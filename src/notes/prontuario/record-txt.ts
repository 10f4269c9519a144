import { PassThrough } from 'node:stream';
import { readableDate } from '../export/export-document.ts';
import { PLAN_TITLE, planBlocks } from '../export/plan-block.ts';
import { renderTxt } from '../export/txt.ts';
import { SPECIES_LABELS } from '../export/vitals-block.ts';
import type { RecordInput, RenderedRecord } from './record-input.ts';

// The record as plain text: a heading (clinic, patient, tutor, the record's hash), then every note
// as its own TXT export (docs/notes-export.md) under an "Atendimento n de N" line, with its
// receituário after it. Written note by note as they are read.

const GENDER = { male: 'Macho', female: 'Fêmea', unidentified: 'Não informado' } as const;
const underlined = (title: string, mark = '-') => `${title}\n${mark.repeat(Math.max([...title].length, 3))}`;

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

export async function recordTxt(input: RecordInput): Promise<RenderedRecord> {
  const body = new PassThrough();
  body.write(headingText(input));
  const drawn = (async () => {
    let index = 0;
    for await (const { document } of input.entries()) {
      index += 1;
      const when = document.createdAt ? readableDate(document.createdAt) : document.patient.date;
      const plan = planBlocks(document.plan).flatMap((block) => [`${block.title}:`, ...block.lines]);
      const planText = plan.length > 0 ? `\n${underlined(PLAN_TITLE)}\n${plan.join('\n')}\n` : '';
      body.write(`\n${underlined(`Atendimento ${index} de ${input.heading.notes} — ${when}`, '=')}\n\n${renderTxt(document)}${planText}`);
    }
    body.end();
  })().catch((error: unknown) => {
    body.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  });
  return { body, drawn };
}
