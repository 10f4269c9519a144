import type { Readable } from 'node:stream';
import type { RecordHeading } from '../export/pdf/record-pdf.ts';
import type { RecordEntry } from './record-notes.ts';

// What a format of the patient's record receives and gives back (record-formats.ts lists them).

/** What every format renders: the heading, the footer's hash and the notes, read anew per call. */
export interface RecordInput {
  heading: RecordHeading;
  /** The record's hash (export/record-hash.ts). */
  sha256: string;
  entries: () => AsyncIterable<RecordEntry>;
}

export interface RenderedRecord {
  /** The file, ending on its own once written. */
  body: Readable;
  /** Settles when every note has been read: the database transaction may end then. */
  drawn: Promise<void>;
}

export interface RecordFormat {
  contentType: string;
  extension: string;
  render(input: RecordInput): Promise<RenderedRecord>;
}
