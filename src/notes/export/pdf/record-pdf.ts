// The prontuário as a PDF page layout (docs/notes-prontuario.md, "The PDF"): A4, the clinic's heading
// and the patient block on the first page, then each consultation oldest first — its date and time,
// its state (signed, amended, or "Rascunho"), vitals, sections with their amendments in place, the
// receituário and the signature — and on every page a footer with the record's hash and "página N de
// M". Drawn with pdfkit's text layout (wrapping, page breaks); every string passes through winAnsi.

import type PDFDocument from 'pdfkit';
import type { StoredClinicProfile } from '../../../platform/db/schema/index.ts';
import type { Species } from '../../store/vitals.schemas.ts';
import { DRAFT_MARK, type ExportDocument, linesOf, REVIEW_TITLE, readableDate, reviewLines, SIMULATED_BANNER } from '../export-document.ts';
import { PLAN_TITLE, planBlocks } from '../plan-blocks.ts';
import { SPECIES_LABELS, VITALS_TITLE, vitalLines } from '../vitals-block.ts';
import { winAnsi } from './win-ansi.ts';

type Doc = InstanceType<typeof PDFDocument>;

/** What the first page says about the clinic and the patient. */
export interface RecordHeading {
  clinic: StoredClinicProfile | null;
  patient: {
    name: string;
    externalId: string | null;
    species: Species | null;
    gender: 'male' | 'female' | 'unidentified';
    /** The tutor as the latest note's metadata names them (tutor.ts); null when none does. */
    tutor: string | null;
  };
  /** When the file was made (ISO timestamp). */
  issuedAt: string;
  /** How many consultations the record holds. */
  notes: number;
}

/** What every page's footer says: the record's hash and the page count (known after a first pass). */
export interface RecordFooter {
  sha256: string;
  /** null while the pages are being counted: the footer is drawn the same size either way. */
  pages: number | null;
}

export const PAGE_MARGINS = { top: 50, bottom: 64, left: 56, right: 56 };
const BLUE = '#0038A8';
const RED = '#C00000';
const GREY = '#555555';
const FONT = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const ITALIC = 'Helvetica-Oblique';

const GENDER_LABELS = { male: 'Macho', female: 'Fêmea', unidentified: 'Não informado' } as const;

/** "página 3 de 12" with the total, or "página 3 de ..." while counting (the same width is not needed: nothing wraps). */
export const pageLabel = (page: number, pages: number | null) => `página ${page} de ${pages ?? '...'}`;

/**
 * Draws the footer on every page as it is added. pdfkit adds a page in the middle of a wrapping
 * paragraph, so the footer leaves the cursor, font and colour as it found them.
 */
export function drawFooters(doc: Doc, footer: RecordFooter): { pagesDrawn: () => number } {
  let page = 0;
  doc.on('pageAdded', () => {
    page += 1;
    // pdfkit keeps the current font and fill colour in these fields and re-applies the colour after a
    // page break in a paragraph (LineWrapper): they must be the paragraph's again, not the footer's.
    const state = doc as unknown as { _font: unknown; _fontSize: number; _fillColor: unknown; x: number; y: number };
    const { _font: font, _fontSize: size, _fillColor: fill, x, y } = state;
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.save();
    const top = doc.page.height - bottom + 22;
    const width = doc.page.width - PAGE_MARGINS.left - PAGE_MARGINS.right;
    doc
      .moveTo(PAGE_MARGINS.left, top - 6)
      .lineTo(doc.page.width - PAGE_MARGINS.right, top - 6)
      .lineWidth(0.5)
      .strokeColor('#999999')
      .stroke();
    doc.font(FONT).fontSize(7).fillColor(GREY);
    doc.text(winAnsi(`SHA-256 do prontuário: ${footer.sha256}`), PAGE_MARGINS.left, top, { width, lineBreak: false });
    doc.text(pageLabel(page, footer.pages), PAGE_MARGINS.left, top, { width, align: 'right', lineBreak: false });
    doc.restore();
    doc.page.margins.bottom = bottom;
    state._font = font;
    state._fontSize = size;
    state._fillColor = fill;
    state.x = x;
    state.y = y;
  });
  return { pagesDrawn: () => page };
}

/** The first page's heading: the clinic (when its profile is set), the title and the patient block. */
export function drawHeading(doc: Doc, heading: RecordHeading): void {
  const { clinic, patient } = heading;
  if (clinic) {
    doc.font(BOLD).fontSize(15).fillColor(BLUE).text(winAnsi(clinic.name));
    const lines = [
      clinic.address,
      clinic.phone ? `Telefone: ${clinic.phone}` : null,
      clinic.crmv_registration ? `Registro: ${clinic.crmv_registration}` : null,
    ];
    doc.font(FONT).fontSize(9).fillColor(GREY);
    for (const line of lines) if (line) doc.text(winAnsi(line));
    doc.moveDown(0.8);
  }
  doc.font(BOLD).fontSize(18).fillColor('black').text('Prontuário');
  doc.moveDown(0.3);
  const rows: [string, string | null][] = [
    ['Paciente', patient.name],
    ['Espécie', patient.species ? SPECIES_LABELS[patient.species] : null],
    ['Sexo', GENDER_LABELS[patient.gender]],
    ['ID externo', patient.externalId],
    ['Tutor(a)', patient.tutor],
    ['Atendimentos', String(heading.notes)],
    ['Emitido em', readableDate(heading.issuedAt)],
  ];
  for (const [label, value] of rows) if (value) labelled(doc, label, value, 10);
  doc.moveDown(0.6);
  rule(doc);
}

/** One consultation: heading with its date and state, then its blocks in the order a vet reads them. */
export function drawNote(doc: Doc, document: ExportDocument, index: number, total: number): void {
  keepRoom(doc, 120);
  doc.moveDown(0.6);
  const when = document.createdAt ? readableDate(document.createdAt) : document.patient.date;
  doc
    .font(BOLD)
    .fontSize(13)
    .fillColor(BLUE)
    .text(winAnsi(`Atendimento ${index} de ${total} — ${when}`));
  const record = document.record;
  const signed = Boolean(record?.signature);
  const state = signed
    ? record?.amendments.length
      ? `Assinado, com ${record.amendments.length} ${record.amendments.length === 1 ? 'adendo' : 'adendos'}`
      : 'Assinado'
    : DRAFT_MARK.toUpperCase();
  doc
    .font(BOLD)
    .fontSize(10)
    .fillColor(signed ? 'black' : RED)
    .text(winAnsi(state));
  doc.fillColor('black');
  if (document.visitDate && document.createdAt && document.visitDate !== document.createdAt.slice(0, 10)) {
    labelled(doc, 'Data da consulta', document.visitDate.split('-').reverse().join('/'), 9);
  }
  if (document.simulated) doc.font(BOLD).fontSize(9).fillColor(RED).text(winAnsi(SIMULATED_BANNER)).fillColor('black');

  const review = reviewLines(document);
  if (review.length > 0) block(doc, REVIEW_TITLE, review, RED);
  const vitals = vitalLines(document.vitals).map(({ line }) => line);
  if (vitals.length > 0) block(doc, VITALS_TITLE, vitals);

  const placed = new Set<number>();
  for (const section of document.sections) {
    keepRoom(doc, 50);
    subtitle(doc, section.title);
    body(doc, section.content.trim() || '(vazio)');
    record?.amendments.forEach((amendment, at) => {
      if (section.id === undefined || amendment.sectionId !== section.id) return;
      placed.add(at);
      drawAmendment(doc, amendment, at + 1);
    });
  }
  // An amendment whose section the note no longer shows still belongs to the record.
  record?.amendments.forEach((amendment, at) => {
    if (placed.has(at)) return;
    subtitle(doc, amendment.sectionTitle);
    drawAmendment(doc, amendment, at + 1);
  });

  const plan = planBlocks(document.plan);
  if (plan.length > 0) {
    keepRoom(doc, 50);
    subtitle(doc, PLAN_TITLE);
    for (const group of plan) {
      doc.font(BOLD).fontSize(9.5).text(winAnsi(group.title), { indent: 8 });
      for (const line of group.lines) doc.font(FONT).fontSize(9.5).text(winAnsi(line), { indent: 16 });
    }
  }

  if (record?.signature) {
    const { signature } = record;
    keepRoom(doc, 50);
    subtitle(doc, 'Assinatura');
    body(doc, `Assinado por ${signature.name} — ${signature.license} em ${readableDate(signature.signedAt)}`);
    doc
      .font(FONT)
      .fontSize(8)
      .fillColor(GREY)
      .text(winAnsi(`SHA-256 na assinatura: ${signature.sha256}`));
    if (record.currentSha256 && record.currentSha256 !== signature.sha256) {
      doc.text(winAnsi(`SHA-256 atual (após ${record.amendments.length} adendo(s)): ${record.currentSha256}`));
    }
    doc.fillColor('black');
  } else {
    doc.moveDown(0.3);
    doc.font(ITALIC).fontSize(9).fillColor(RED).text('Rascunho: não assinado por veterinário; não vale como registro assinado.');
    doc.fillColor('black');
  }
  doc.moveDown(0.5);
  rule(doc);
}

type Amendment = NonNullable<ExportDocument['record']>['amendments'][number];

/** An amendment in place: who, when and why, the text it replaced (quoted and struck through), the new text. */
function drawAmendment(doc: Doc, amendment: Amendment, position: number): void {
  keepRoom(doc, 60);
  doc.moveDown(0.2);
  doc
    .font(BOLD)
    .fontSize(9)
    .fillColor(BLUE)
    .text(winAnsi(`Adendo ${position} — ${readableDate(amendment.createdAt)} — ${amendment.name} (${amendment.license})`), { indent: 12 });
  doc
    .font(FONT)
    .fillColor('black')
    .text(winAnsi(`Motivo: ${amendment.reason}`), { indent: 12 });
  doc.font(ITALIC).fillColor(GREY).text('Texto anterior (substituído):', { indent: 12 });
  doc
    .font(FONT)
    .text(winAnsi(`“${amendment.previousContent.trim()}”`), { indent: 20, strike: true })
    .fillColor('black');
  doc.font(ITALIC).text('Texto novo:', { indent: 12 });
  doc.font(FONT).text(winAnsi(amendment.content.trim()), { indent: 20 });
}

function block(doc: Doc, title: string, lines: string[], colour = 'black'): void {
  keepRoom(doc, 40);
  subtitle(doc, title);
  doc.font(FONT).fontSize(9.5).fillColor(colour);
  for (const line of lines) doc.text(winAnsi(line), { indent: 8 });
  doc.fillColor('black');
}

function subtitle(doc: Doc, title: string): void {
  doc.moveDown(0.4);
  doc.font(BOLD).fontSize(11).fillColor('black').text(winAnsi(title));
}

function body(doc: Doc, text: string): void {
  doc.font(FONT).fontSize(10).fillColor('black');
  for (const line of linesOf(text)) doc.text(winAnsi(line) || ' ');
}

function labelled(doc: Doc, label: string, value: string, size: number): void {
  doc
    .font(BOLD)
    .fontSize(size)
    .fillColor('black')
    .text(winAnsi(`${label}: `), { continued: true });
  doc.font(FONT).text(winAnsi(value));
}

function rule(doc: Doc): void {
  const y = doc.y + 2;
  doc
    .moveTo(PAGE_MARGINS.left, y)
    .lineTo(doc.page.width - PAGE_MARGINS.right, y)
    .lineWidth(0.5)
    .strokeColor('#BBBBBB')
    .stroke();
  doc.y = y + 4;
}

/** A heading never ends a page alone: start the next one when less than `points` are left. */
function keepRoom(doc: Doc, points: number): void {
  if (doc.y + points > doc.page.height - doc.page.margins.bottom) doc.addPage();
}
