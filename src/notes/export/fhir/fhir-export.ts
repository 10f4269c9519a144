import type { Db } from '../../../platform/db/client.ts';
import { toTimestamp } from '../../../platform/http/schemas.ts';
import { coveredPlan, coveredSections, coveredStateOf } from '../../chain/covered-state.ts';
import { chainLinks } from '../../chain/note-chain.ts';
import { findNote, type NoteRow, type SectionRow, sectionsOf } from '../../store/notes.repo.ts';
import { type AmendmentRow, amendmentsOf, findSignature, type SignatureRow } from '../../store/record.repo.ts';
import { noteDocument, recordCollection } from './fhir-document.ts';
import type { FhirBundle } from './fhir-resource.ts';

// The FHIR export for the routes. The note export (`format=fhir`) and the patient's record route
// call these after their own tenancy and state checks: they read any note they are given.

/** A note's rows: what its FHIR document is built from (the record route reads them in batches). */
export interface FhirNoteRows {
  note: NoteRow;
  sections: SectionRow[];
  signature: SignatureRow | null | undefined;
  amendments: AmendmentRow[];
}

/** One note's FHIR R4 document (a Bundle of type `document`) from its rows; pure. */
export function fhirDocumentOfRows({ note, sections, signature, amendments }: FhirNoteRows): FhirBundle {
  const current = coveredStateOf(note, sections);
  return noteDocument({
    id: note.id,
    clinicId: note.clinicId,
    name: note.name,
    gender: note.gender,
    externalId: note.externalId,
    species: note.species,
    metadata: note.metadata,
    recordStatus: note.recordStatus,
    createdAt: toTimestamp(note.createdAt),
    updatedAt: toTimestamp(note.updatedAt),
    visitDate: note.visitDate,
    templateName: note.template?.name ?? 'Padrão',
    sections: coveredSections(sections),
    vitals: note.vitals,
    plan: coveredPlan(note.plan),
    chain: { noteId: note.id, links: chainLinks(signature ?? undefined, signature ? amendments : [], sections), current },
  });
}

/** One note's FHIR R4 document read from the database; undefined when there is no such note. */
export async function noteFhirDocument(noteId: string, db: Db): Promise<FhirBundle | undefined> {
  const note = await findNote(noteId, db);
  if (!note) return undefined;
  const signature = await findSignature(noteId, db);
  return fhirDocumentOfRows({
    note,
    sections: await sectionsOf(noteId, db),
    signature,
    amendments: signature ? await amendmentsOf(noteId, db) : [],
  });
}

/**
 * A patient's record as one FHIR `collection` of note documents, in the order of `noteIds` (the
 * record route passes them oldest first), assembled whole. For a long record prefer
 * fhirCollectionText, which holds one note at a time.
 */
export async function recordFhirCollection(noteIds: readonly string[], db: Db, now = new Date()): Promise<FhirBundle> {
  const documents: FhirBundle[] = [];
  for (const id of noteIds) {
    const document = await noteFhirDocument(id, db);
    if (document) documents.push(document);
  }
  return recordCollection(documents, toTimestamp(now));
}

/**
 * A `collection` of the documents given, as JSON text in pieces, one document at a time, for a
 * response stream: memory holds one note, not the record. Joined, the pieces are the JSON of
 * recordCollection(documents, now). The record route maps its batched rows through
 * fhirDocumentOfRows into it.
 */
export async function* fhirCollectionText(
  documents: AsyncIterable<FhirBundle> | Iterable<FhirBundle>,
  now = new Date(),
): AsyncGenerator<string> {
  const { entry: _none, ...head } = recordCollection([], toTimestamp(now));
  yield `${JSON.stringify(head).slice(0, -1)},"entry":[`;
  let first = true;
  for await (const document of documents) {
    const [entry] = recordCollection([document], '').entry ?? [];
    yield `${first ? '' : ','}${JSON.stringify(entry)}`;
    first = false;
  }
  yield ']}';
}

/** fhirCollectionText over notes read one by one by id (what the tests and a simple caller use). */
export async function* recordFhirCollectionText(noteIds: readonly string[], db: Db, now = new Date()): AsyncGenerator<string> {
  async function* documents() {
    for (const id of noteIds) {
      const document = await noteFhirDocument(id, db);
      if (document) yield document;
    }
  }
  yield* fhirCollectionText(documents(), now);
}
