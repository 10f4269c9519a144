import type { Db } from '../../../platform/db/client.ts';
import { toTimestamp } from '../../../platform/http/schemas.ts';
import { coveredPlan, coveredSections } from '../../chain/covered-state.ts';
import { noteChainOf } from '../../chain/note-chain.ts';
import { findNote, sectionsOf } from '../../store/notes.repo.ts';
import { noteDocument, recordCollection } from './fhir-document.ts';
import type { FhirBundle } from './fhir-resource.ts';

// The FHIR export read from the database. The note export (`format=fhir`) and the patient's record
// route call these after their own tenancy and state checks: they read any note they are given.

/** One note's FHIR R4 document (a Bundle of type `document`); undefined when there is no such note. */
export async function noteFhirDocument(noteId: string, db: Db): Promise<FhirBundle | undefined> {
  const note = await findNote(noteId, db);
  const chain = await noteChainOf(noteId, db);
  if (!note || !chain) return undefined;
  const sections = await sectionsOf(noteId, db);
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
    chain,
  });
}

/**
 * A patient's record as one FHIR `collection` of note documents, in the order of `noteIds` (the
 * record route passes them oldest first), assembled whole. For a long record prefer
 * recordFhirCollectionText, which holds one note at a time.
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
 * The same collection as JSON text in pieces, one note's document at a time, for a response
 * stream: memory holds one note, not the record. Joined, the pieces are
 * JSON.stringify(recordFhirCollection(noteIds, db, now)).
 */
export async function* recordFhirCollectionText(noteIds: readonly string[], db: Db, now = new Date()): AsyncGenerator<string> {
  const { entry: _none, ...head } = recordCollection([], toTimestamp(now));
  yield `${JSON.stringify(head).slice(0, -1)},"entry":[`;
  let first = true;
  for (const id of noteIds) {
    const document = await noteFhirDocument(id, db);
    if (!document) continue;
    const [entry] = recordCollection([document], '').entry ?? [];
    yield `${first ? '' : ','}${JSON.stringify(entry)}`;
    first = false;
  }
  yield ']}';
}
