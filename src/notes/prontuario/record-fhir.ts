import { PassThrough } from 'node:stream';
import { fhirCollectionText, fhirDocumentOfRows } from '../export/fhir/fhir-export.ts';
import type { RecordInput, RenderedRecord } from './record-input.ts';

// The record as FHIR R4: a `collection` Bundle of the notes' `document` Bundles, oldest first
// (docs/notes-export.md, "FHIR R4"), written one note at a time as the batches are read, so memory
// holds one note's document, not the record. `record verify` checks every note's chain in it.

export async function recordFhir(input: RecordInput): Promise<RenderedRecord> {
  const body = new PassThrough();
  async function* documents() {
    for await (const entry of input.entries()) yield fhirDocumentOfRows(entry);
  }
  const drawn = (async () => {
    for await (const piece of fhirCollectionText(documents())) {
      // Backpressure: a slow client holds the reading of the next batch, not the whole record.
      if (!body.write(piece)) await new Promise((resolve) => body.once('drain', resolve));
    }
    body.end();
  })().catch((error: unknown) => {
    body.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  });
  return { body, drawn };
}
