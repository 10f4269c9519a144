import type { CoveredPatient, CoveredSection } from '../../chain/covered-state.ts';
import type { ChainLink, HashVersion, LinkState, NoteChain } from '../../chain/verify-chain.ts';
import { EXTENSIONS, SYSTEMS } from './fhir-codes.ts';
import { COVERED_BINARY_ID } from './fhir-provenance.ts';
import { narrativeOf } from './fhir-resource.ts';

// The hash chains of a FHIR export, read back for `record verify`: a note's document (or a
// patient's collection of them) gives, per note, its Provenances as links — signer, time, reason,
// hashes and the covered state in the contained Binary — and the note as the document shows it
// (the Composition's sections, the Patient), which the last link must cover.

type Json = Record<string, any>;

class NotARecord extends Error {}
const fail = (why: string): never => {
  throw new NotARecord(`not a vetflow FHIR record export: ${why}`);
};

/** Every note's chain in a FHIR document Bundle or a collection of them. */
export function chainsOfFhir(bundle: Json): NoteChain[] {
  if (bundle.resourceType !== 'Bundle') fail('the file is no Bundle');
  if (bundle.type === 'document') return [chainOfDocument(bundle)];
  if (bundle.type !== 'collection') fail(`a Bundle of type ${bundle.type}, not document or collection`);
  return (bundle.entry ?? []).map((entry: Json, index: number) => {
    if (entry?.resource?.resourceType !== 'Bundle' || entry.resource.type !== 'document') fail(`entry ${index} is no document Bundle`);
    return chainOfDocument(entry.resource);
  });
}

function chainOfDocument(document: Json): NoteChain {
  const entries: Json[] = Array.isArray(document.entry) ? document.entry : fail('a document without entries');
  const byUrl = new Map(entries.map((entry) => [entry.fullUrl, entry.resource as Json]));
  const resolve = (reference: unknown, type: string): Json => {
    const resource = typeof reference === 'string' ? byUrl.get(reference) : undefined;
    return resource?.resourceType === type ? resource : fail(`${String(reference)} is no ${type} of the document`);
  };
  const composition = entries[0]?.resource as Json;
  if (composition?.resourceType !== 'Composition') fail('the first entry of a document is not its Composition');
  const identifier = String(composition.identifier?.value ?? '');
  if (!identifier.startsWith('urn:uuid:')) fail("the Composition's identifier is not the note's urn:uuid");
  const noteId = identifier.slice('urn:uuid:'.length);
  const compositionUrl = entries[0]!.fullUrl;

  const links = entries
    .map((entry) => entry.resource as Json)
    .filter((resource) => resource?.resourceType === 'Provenance' && resource.target?.some((t: Json) => t.reference === compositionUrl))
    .map((provenance) => linkOf(provenance, resolve))
    .sort((a, b) => a.position - b.position);
  const last = links.at(-1);
  if (!last) return { noteId, links, current: {} };
  const patient = resolve(composition.subject?.reference, 'Patient');
  return { noteId, links, current: { patient: patientOf(patient), sections: sectionsOf(composition, last.state.sections) } };
}

const extension = (resource: Json, url: string) => (resource.extension ?? []).find((item: Json) => item.url === url);

function linkOf(provenance: Json, resolve: (reference: unknown, type: string) => Json): ChainLink {
  const position = extension(provenance, EXTENSIONS.linkPosition)?.valueInteger;
  const hashVersion = extension(provenance, EXTENSIONS.hashVersion)?.valueInteger;
  const sha256 = extension(provenance, EXTENSIONS.contentSha256)?.valueString;
  if (typeof position !== 'number' || (hashVersion !== 1 && hashVersion !== 2) || typeof sha256 !== 'string') {
    fail(`Provenance ${provenance.id} lacks its link position, hash version or hash`);
  }
  const practitioner = resolve(provenance.agent?.[0]?.who?.reference, 'Practitioner');
  const binary = (provenance.contained ?? []).find((item: Json) => item.resourceType === 'Binary' && item.id === COVERED_BINARY_ID);
  if (typeof binary?.data !== 'string') fail(`Provenance ${provenance.id} carries no covered state`);
  let state: LinkState;
  try {
    state = JSON.parse(Buffer.from(binary.data, 'base64').toString('utf8'));
  } catch {
    return fail(`the covered state of Provenance ${provenance.id} is not JSON`);
  }
  return {
    position,
    hashVersion: hashVersion as HashVersion,
    sha256,
    previousSha256: extension(provenance, EXTENSIONS.previousSha256)?.valueString ?? null,
    signedBy: {
      name: String(practitioner.name?.[0]?.text ?? ''),
      license: String(practitioner.identifier?.find((item: Json) => item.system === SYSTEMS.crmv)?.value ?? ''),
    },
    signedAt: String(provenance.recorded ?? ''),
    reason: position === 0 ? null : String(provenance.reason?.[0]?.text ?? ''),
    state,
  };
}

function patientOf(patient: Json): CoveredPatient {
  const species = extension(patient, EXTENSIONS.patientAnimal)
    ?.extension?.find((item: Json) => item.url === 'species')
    ?.valueCodeableConcept?.coding?.find((coding: Json) => coding.system === SYSTEMS.species)?.code;
  const externalId = (patient.identifier ?? []).find((item: Json) => String(item.system).startsWith(SYSTEMS.patientExternalId))?.value;
  return { name: String(patient.name?.[0]?.text ?? ''), external_id: externalId ?? null, species: species ?? null };
}

/**
 * The Composition's sections as the canonical form has them. A narrative is the text escaped, so
 * it is compared with the narrative of the text the last link covered: when they agree the text is
 * that one, otherwise the narrative itself stands for it and the last link no longer verifies.
 */
function sectionsOf(composition: Json, covered: readonly CoveredSection[]): CoveredSection[] {
  return (composition.section ?? []).map((section: Json, index: number) => {
    const expected = covered[index]?.content ?? '';
    const div = String(section.text?.div ?? '');
    return {
      label: String(section.code?.coding?.find((coding: Json) => coding.system === SYSTEMS.sectionLabel)?.code ?? ''),
      title: String(section.title ?? ''),
      content: narrativeOf(expected).div === div ? expected : div,
      order: String(extension(section, EXTENSIONS.sectionOrder)?.valueString ?? ''),
    };
  });
}
