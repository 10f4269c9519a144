import type { Readable } from 'node:stream';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../callers.ts';
import { toChainJson } from '../chain/chain-json.ts';
import { noteChainOf } from '../chain/note-chain.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { type NoteRow, type SectionRow, sectionsOf } from '../store/notes.repo.ts';
import { noteOfClinic } from '../store/own-note.ts';
import { amendmentsOf, findSignature } from '../store/record.repo.ts';
import { findSettings } from '../store/settings.repo.ts';
import { type ExportDocument, type ExportRecord, exportDay, toExportDocument, toExportRecord } from './export-document.ts';
import { noteFhirDocument } from './fhir/fhir-export.ts';
import { attachmentDisposition } from './filename.ts';
import { recordPdf } from './pdf/record-pdf-stream.ts';
import { recordSha256 } from './record-hash.ts';
import { recordHeading } from './record-heading.ts';
import { renderRtf } from './rtf.ts';
import { renderTxt } from './txt.ts';

export const EXPORT_FORMATS = ['txt', 'rtf', 'pdf', 'json', 'fhir'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

type Body = string | Readable;

/** The formats a person reads, rendered from the export document (the PDF also prints the clinic's heading). */
const DOCUMENT_FORMATS = {
  txt: { contentType: 'text/plain; charset=utf-8', render: async (document: ExportDocument) => renderTxt(document) },
  rtf: { contentType: 'application/rtf', render: async (document: ExportDocument) => renderRtf(document) },
  pdf: { contentType: 'application/pdf', render: renderPdf },
} satisfies Record<string, { contentType: string; render: (document: ExportDocument, note: NoteRow, db: Db) => Promise<Body> }>;

/** The formats a program reads and `record verify` checks: the note with its whole hash chain. */
const CHAIN_FORMATS = {
  json: {
    contentType: 'application/json',
    render: async (noteId: string, db: Db) => JSON.stringify(toChainJson([found(await noteChainOf(noteId, db))])),
  },
  fhir: {
    contentType: 'application/fhir+json',
    render: async (noteId: string, db: Db) => JSON.stringify(found(await noteFhirDocument(noteId, db))),
  },
} as const;

const FILE_EXTENSIONS: Record<ExportFormat, string> = { txt: 'txt', rtf: 'rtf', pdf: 'pdf', json: 'json', fhir: 'fhir.json' };

/** The note was found a moment ago: gone now, it was deleted meanwhile. */
function found<T>(value: T | undefined): T {
  if (!value) throw new AppError('NOTE_NOT_FOUND', 'Note not found');
  return value;
}

export interface ExportFile {
  contentType: string;
  disposition: string;
  /** TXT, RTF, JSON and FHIR as a string; the PDF as a stream. */
  body: Body;
}

/** One note as the record's PDF (export/pdf/): its clinic's heading, the footer hash over its one link. */
async function renderPdf(document: ExportDocument, note: NoteRow, db: Db): Promise<Readable> {
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

/** A completed note of the caller's clinic as a TXT, RTF, PDF, JSON or FHIR download, recorded in its history (`exported`). */
async function exportNote({ db }: { db: Db }, caller: NotesCaller, id: string, format: string | string[] | undefined): Promise<ExportFile> {
  const chosen = parseFormat(format);
  const note = await noteOfClinic(caller, id, db);
  if (note.transcriptionStatus !== 'completed') {
    throw new AppError('NOTE_NOT_COMPLETED', 'Only a completed note can be exported', {
      transcription_status: note.transcriptionStatus,
    });
  }
  const { contentType, body } =
    chosen in CHAIN_FORMATS
      ? await chainFile(note.id, chosen as keyof typeof CHAIN_FORMATS, db)
      : await documentFile(note, chosen as keyof typeof DOCUMENT_FORMATS, db);
  await db.transaction((tx) => recordNoteEvent(tx, note.id, 'exported', caller, { format: chosen }));
  return { contentType, disposition: attachmentDisposition(note.name, exportDay(note), FILE_EXTENSIONS[chosen]), body };
}

async function documentFile(note: NoteRow, format: keyof typeof DOCUMENT_FORMATS, db: Db) {
  const sections = await sectionsOf(note.id, db);
  const document = { ...toExportDocument(note, sections), record: await exportRecord(note.id, sections, db) };
  const { contentType, render } = DOCUMENT_FORMATS[format];
  return { contentType, body: await render(document, note, db) };
}

async function chainFile(noteId: string, format: keyof typeof CHAIN_FORMATS, db: Db) {
  const { contentType, render } = CHAIN_FORMATS[format];
  return { contentType, body: await render(noteId, db) };
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
