import type { Readable } from 'node:stream';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../callers.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import type { NoteRow } from '../store/notes.repo.ts';
import { type SectionRow, sectionsOf } from '../store/notes.repo.ts';
import { noteOfClinic } from '../store/own-note.ts';
import { amendmentsOf, findSignature } from '../store/record.repo.ts';
import { findSettings } from '../store/settings.repo.ts';
import { type ExportDocument, type ExportRecord, toExportDocument, toExportRecord } from './export-document.ts';
import { attachmentDisposition } from './filename.ts';
import { recordPdf } from './pdf/record-pdf-stream.ts';
import { recordSha256 } from './record-hash.ts';
import { recordHeading } from './record-heading.ts';
import { renderRtf } from './rtf.ts';
import { renderTxt } from './txt.ts';

export const EXPORT_FORMATS = ['txt', 'rtf', 'pdf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What a format needs beyond the note's document: the PDF prints the clinic's heading. */
interface ExportContext {
  note: NoteRow;
  db: Db;
}

const FORMATS: Record<
  ExportFormat,
  { contentType: string; render: (document: ExportDocument, context: ExportContext) => Promise<string | Readable> }
> = {
  txt: { contentType: 'text/plain; charset=utf-8', render: async (document) => renderTxt(document) },
  rtf: { contentType: 'application/rtf', render: async (document) => renderRtf(document) },
  pdf: { contentType: 'application/pdf', render: renderPdf },
};

export interface ExportFile {
  contentType: string;
  disposition: string;
  /** TXT and RTF as a string; the PDF as a stream. */
  body: string | Readable;
}

/** One note as the record's PDF (export/pdf/): its clinic's heading, the footer hash over its one link. */
async function renderPdf(document: ExportDocument, { note, db }: ExportContext): Promise<Readable> {
  const heading = recordHeading(note, await findSettings(note.clinicId, db), [note]);
  const sha256 = recordSha256([{ noteId: note.id, sha256: document.record?.currentSha256 ?? null }]);
  async function* one() {
    yield document;
  }
  const { body, drawn } = await recordPdf(heading, one, sha256);
  // A draw that fails destroys the body, which ends the answer; nothing else waits for it.
  drawn.catch(() => {});
  return body;
}

/** A completed note of the caller's clinic as a TXT, RTF or PDF download, recorded in its history (`exported`). */
async function exportNote({ db }: { db: Db }, caller: NotesCaller, id: string, format: string | string[] | undefined): Promise<ExportFile> {
  const chosen = parseFormat(format);
  const note = await noteOfClinic(caller, id, db);
  if (note.transcriptionStatus !== 'completed') {
    throw new AppError('NOTE_NOT_COMPLETED', 'Only a completed note can be exported', {
      transcription_status: note.transcriptionStatus,
    });
  }
  const sections = await sectionsOf(note.id, db);
  const document = { ...toExportDocument(note, sections), record: await exportRecord(note.id, sections, db) };
  const { contentType, render } = FORMATS[chosen];
  const body = await render(document, { note, db });
  await db.transaction((tx) => recordNoteEvent(tx, note.id, 'exported', caller, { format: chosen }));
  return { contentType, disposition: attachmentDisposition(note.name, document.patient.date, chosen), body };
}

/** The signature and amendments an export shows (none for a draft, which the export marks as such). */
async function exportRecord(noteId: string, sections: SectionRow[], db: Db): Promise<ExportRecord> {
  const signature = await findSignature(noteId, db);
  return toExportRecord(signature, signature ? await amendmentsOf(noteId, db) : [], sections);
}

/** Exports bound once to the database: `exportNote(caller, id, format)`. */
export function exportService(deps: { db: Db }) {
  return bindService(deps, { exportNote });
}

// Checked here rather than as a zod enum on the query string: the shared handler answers a query
// that breaks its schema with 422, and the description lists 400 for a bad export request.
function parseFormat(format: string | string[] | undefined): ExportFormat {
  if (format === undefined) return 'txt';
  if (typeof format === 'string' && (EXPORT_FORMATS as readonly string[]).includes(format)) return format as ExportFormat;
  throw new AppError('INVALID_PARAMETER', `Unknown export format; use one of ${EXPORT_FORMATS.join(', ')}`, {
    field: 'format',
    reason: typeof format === 'string' ? 'unknown format' : 'given more than once',
    expected: EXPORT_FORMATS,
    received: format,
  });
}

export type ExportService = ReturnType<typeof exportService>;
