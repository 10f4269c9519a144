import { createHash } from 'node:crypto';
import type { StoredVital } from '../../../platform/db/schema/index.ts';
import type { CoveredPlan, CoveredSection } from '../../chain/covered-state.ts';
import type { NoteChain } from '../../chain/verify-chain.ts';

/** A FHIR resource as JSON: the export builds plain objects, validated against the R4 definitions in the tests. */
export type FhirResource = { resourceType: string; id?: string } & Record<string, unknown>;
export type FhirBundle = FhirResource & { resourceType: 'Bundle'; entry?: { fullUrl?: string; resource: FhirResource }[] };

/** What a note's FHIR document is built from, free of database rows. */
export interface FhirNoteInput {
  id: string;
  clinicId: string;
  name: string;
  gender: 'male' | 'female' | 'unidentified';
  externalId: string | null;
  species: string | null;
  metadata: readonly { key: string; value: string }[];
  recordStatus: 'draft' | 'signed' | 'amended';
  /** API timestamps (`YYYY-MM-DDThh:mm:ssZ`). */
  createdAt: string;
  updatedAt: string;
  /** The consultation day, `YYYY-MM-DD`, when known. */
  visitDate: string | null;
  templateName: string;
  /** The sections as they stand, in the API's order. */
  sections: readonly CoveredSection[];
  vitals: readonly StoredVital[];
  plan: CoveredPlan | null;
  chain: NoteChain;
}

/**
 * A stable UUID for one resource of one note (`kind`: "patient", "encounter", "vital-2", …): the
 * same note exports the same ids every time, and documents of different notes never collide.
 */
export function resourceUuid(noteId: string, kind: string): string {
  const hex = createHash('sha256').update(`${noteId}:${kind}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const urnOf = (uuid: string) => `urn:uuid:${uuid}`;

/** An entry of a bundle: its resource under a `urn:uuid` full URL that references point at. */
export function entryOf(resource: FhirResource & { id: string }) {
  return { fullUrl: urnOf(resource.id), resource };
}

const XHTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/**
 * A section's narrative: its exact text, escaped, its line breaks kept by the style. A section the
 * vet left empty still says so, as FHIR requires a narrative with content.
 */
export function narrativeOf(text: string) {
  const body = text.trim() === '' ? '(sem conteúdo)' : text.replace(/[&<>"]/g, (char) => XHTML_ESCAPES[char]!);
  return { status: 'generated', div: `<div xmlns="http://www.w3.org/1999/xhtml" style="white-space: pre-wrap">${body}</div>` };
}
