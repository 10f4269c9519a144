import type { Readable } from 'node:stream';
import PDFDocument from 'pdfkit';
import type { ExportDocument } from '../export-document.ts';
import { drawFooters, drawHeading, drawNote, PAGE_MARGINS, type RecordHeading } from './record-pdf.ts';

// "página N de M" needs M on page 1, and the notes are read from the database a page at a time, so
// the record is laid out twice: a first pass counts the pages (its bytes are thrown away as they
// come), the second draws the same layout with the total and streams it. pdfkit writes each page out
// when the next one starts, so neither pass holds more than one page and one batch of notes in
// memory, whatever the number of notes (docs/notes-prontuario.md, "Memory"). Buffering the pages
// instead (`bufferPages`) would hold every page of the record until the end.

/** The notes of the record, oldest first: called once per pass, each call reads them anew. */
export type NotesReader = () => AsyncIterable<ExportDocument>;

export interface RecordPdf {
  /** The PDF, written as the second pass draws it. */
  body: Readable;
  pages: number;
  /** Settles when the second pass has read every note (the notes' source may be released then). */
  drawn: Promise<void>;
}

function newDocument(heading: RecordHeading, compress: boolean) {
  return new PDFDocument({
    size: 'A4',
    margins: PAGE_MARGINS,
    autoFirstPage: false,
    compress,
    info: {
      Title: `Prontuário — ${heading.patient.name}`,
      Author: heading.clinic?.name ?? 'vetflow',
      CreationDate: new Date(heading.issuedAt),
    },
    lang: 'pt-BR',
    displayTitle: true,
  });
}

async function draw(doc: InstanceType<typeof PDFDocument>, heading: RecordHeading, notes: NotesReader): Promise<void> {
  doc.addPage();
  drawHeading(doc, heading);
  let index = 0;
  for await (const document of notes()) {
    index += 1;
    drawNote(doc, document, index, heading.notes);
  }
}

/** Pass one: the same layout into a sink, for the number of pages. */
async function countPages(heading: RecordHeading, notes: NotesReader, sha256: string): Promise<number> {
  const doc = newDocument(heading, false);
  doc.on('data', () => {});
  const footers = drawFooters(doc, { sha256, pages: null });
  await draw(doc, heading, notes);
  doc.end();
  return footers.pagesDrawn();
}

/** The record as a PDF stream; resolves once the pages are counted, as the second pass starts. */
export async function recordPdf(heading: RecordHeading, notes: NotesReader, sha256: string): Promise<RecordPdf> {
  const pages = await countPages(heading, notes, sha256);
  const doc = newDocument(heading, true);
  drawFooters(doc, { sha256, pages });
  const drawn = draw(doc, heading, notes).then(
    () => {
      doc.end();
    },
    (error: unknown) => {
      doc.destroy(error instanceof Error ? error : new Error(String(error)));
      throw error;
    },
  );
  return { body: doc, pages, drawn };
}
