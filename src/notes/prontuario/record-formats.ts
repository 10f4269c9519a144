import { recordPdf } from '../export/pdf/record-pdf-stream.ts';
import { recordFhir } from './record-fhir.ts';
import type { RecordFormat } from './record-input.ts';
import type { RecordEntry } from './record-notes.ts';
import { recordTxt } from './record-txt.ts';

// The formats of `GET /patients/{external_id}/record`, one entry each: the query's enum, the
// OpenAPI's content types and the service's choice all read this table: a format is one entry whose
// `render` reads the same entries.

async function* documentsOf(entries: AsyncIterable<RecordEntry>) {
  for await (const entry of entries) yield entry.document;
}

export const RECORD_FORMATS = {
  pdf: {
    contentType: 'application/pdf',
    extension: 'pdf',
    render: ({ heading, sha256, entries }) => recordPdf(heading, () => documentsOf(entries()), sha256),
  },
  txt: { contentType: 'text/plain; charset=utf-8', extension: 'txt', render: recordTxt },
  fhir: { contentType: 'application/fhir+json', extension: 'fhir.json', render: recordFhir },
} as const satisfies Record<string, RecordFormat>;

export type RecordFormatName = keyof typeof RECORD_FORMATS;
export const RECORD_FORMAT_NAMES = Object.keys(RECORD_FORMATS) as [RecordFormatName, ...RecordFormatName[]];
