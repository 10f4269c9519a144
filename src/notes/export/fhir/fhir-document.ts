import type { StoredVital } from '../../../platform/db/schema/index.ts';
import { EXTENSIONS, GENDERS, INTERPRETATIONS, SPECIES_SNOMED, SYSTEMS, VITAL_CODES } from './fhir-codes.ts';
import { planResources } from './fhir-plan.ts';
import { practitionerUuid, provenanceOf } from './fhir-provenance.ts';
import { entryOf, type FhirBundle, type FhirNoteInput, type FhirResource, narrativeOf, resourceUuid, urnOf } from './fhir-resource.ts';

// A note as a FHIR R4 document (docs/notes-export.md, "FHIR R4"): a Bundle of type `document` whose
// first entry is the Composition (one section per note section), then the Patient, the tutor, the
// practitioners, the Encounter, an Observation per vital, the plan and a Provenance per link of the
// hash chain. Pure: the same input gives the same bundle, byte for byte.

const COMPOSITION_STATUS = { draft: 'preliminary', signed: 'final', amended: 'amended' } as const;
/** Metadata keys an upload may name the tutor under. */
const TUTOR_KEYS = ['owner_name', 'tutor', 'tutor_name'];

type Identified = FhirResource & { id: string };

function patientOf(note: FhirNoteInput, id: string): Identified {
  const snomed = note.species ? SPECIES_SNOMED[note.species] : undefined;
  return {
    resourceType: 'Patient',
    id,
    ...(note.externalId ? { identifier: [{ system: `${SYSTEMS.patientExternalId}:${note.clinicId}`, value: note.externalId }] } : {}),
    name: [{ text: note.name }],
    gender: GENDERS[note.gender],
    ...(note.species
      ? {
          extension: [
            {
              url: EXTENSIONS.patientAnimal,
              extension: [
                {
                  url: 'species',
                  valueCodeableConcept: {
                    coding: [
                      ...(snomed ? [{ system: SYSTEMS.snomed, code: snomed.code, display: snomed.display }] : []),
                      { system: SYSTEMS.species, code: note.species },
                    ],
                    text: note.species,
                  },
                },
              ],
            },
          ],
        }
      : {}),
  };
}

function observationOf(vital: StoredVital, index: number, note: FhirNoteInput, refs: { patient: string; encounter: string }): Identified {
  const code = VITAL_CODES[vital.code] ?? { text: vital.code };
  const value =
    typeof vital.value === 'number'
      ? {
          valueQuantity: {
            value: vital.value,
            ...(vital.comparator ? { comparator: vital.comparator } : {}),
            ...(vital.unit ? { unit: vital.unit } : {}),
            ...(code.ucum ? { system: SYSTEMS.ucum, code: code.ucum } : {}),
          },
        }
      : { valueCodeableConcept: { coding: [{ system: `${SYSTEMS.vital}:${vital.code}`, code: vital.value }], text: vital.value } };
  const interpretation = vital.flag ? INTERPRETATIONS[vital.flag] : undefined;
  return {
    resourceType: 'Observation',
    id: resourceUuid(note.id, `vital-${index}`),
    status: note.recordStatus === 'draft' ? 'preliminary' : note.recordStatus === 'amended' ? 'amended' : 'final',
    category: [
      { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs', display: 'Vital Signs' }] },
    ],
    code: {
      coding: [...(code.loinc ? [{ system: SYSTEMS.loinc, ...code.loinc }] : []), { system: SYSTEMS.vital, code: vital.code }],
      text: code.text,
    },
    subject: { reference: urnOf(refs.patient) },
    encounter: { reference: urnOf(refs.encounter) },
    effectiveDateTime: note.visitDate ?? note.createdAt,
    ...value,
    ...(interpretation
      ? {
          interpretation: [
            { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation', ...interpretation }] },
          ],
        }
      : {}),
    note: [{ text: vital.text }],
  };
}

/** The note's FHIR R4 document. */
export function noteDocument(note: FhirNoteInput): FhirBundle {
  const ids = {
    composition: resourceUuid(note.id, 'composition'),
    patient: resourceUuid(note.id, 'patient'),
    encounter: resourceUuid(note.id, 'encounter'),
    tutor: resourceUuid(note.id, 'tutor'),
  };
  const links = note.chain.links;
  const signer = links[0]?.signedBy ?? null;
  const practitioners = new Map<string, Identified>();
  for (const link of links) {
    const id = practitionerUuid(note.id, link.signedBy);
    practitioners.set(id, {
      resourceType: 'Practitioner',
      id,
      identifier: [{ system: SYSTEMS.crmv, value: link.signedBy.license }],
      name: [{ text: link.signedBy.name }],
    });
  }
  const signerId = signer ? practitionerUuid(note.id, signer) : null;
  const tutorName = note.metadata.find((item) => TUTOR_KEYS.includes(item.key) && item.value.trim() !== '')?.value ?? null;
  const at = note.visitDate ?? note.createdAt;

  const composition: Identified = {
    resourceType: 'Composition',
    id: ids.composition,
    identifier: { system: SYSTEMS.uri, value: urnOf(note.id) },
    status: COMPOSITION_STATUS[note.recordStatus],
    type: { coding: [{ system: SYSTEMS.loinc, code: '11488-4', display: 'Consult note' }], text: note.templateName },
    subject: { reference: urnOf(ids.patient) },
    encounter: { reference: urnOf(ids.encounter) },
    date: links.at(-1)?.signedAt ?? note.updatedAt,
    // A draft has no author yet: vetflow wrote it from the consultation's audio.
    author: [signerId ? { reference: urnOf(signerId) } : { display: 'vetflow (rascunho não assinado)' }],
    title: `Consulta — ${note.name}`,
    ...(signerId && links[0] ? { attester: [{ mode: 'legal', time: links[0].signedAt, party: { reference: urnOf(signerId) } }] } : {}),
    section: note.sections.map((section) => ({
      extension: [{ url: EXTENSIONS.sectionOrder, valueString: section.order }],
      title: section.title,
      code: { coding: [{ system: SYSTEMS.sectionLabel, code: section.label }], text: section.title },
      text: narrativeOf(section.content),
    })),
  };
  const encounter: Identified = {
    resourceType: 'Encounter',
    id: ids.encounter,
    status: 'finished',
    class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB', display: 'ambulatory' },
    subject: { reference: urnOf(ids.patient) },
    period: { start: at },
    ...(signerId ? { participant: [{ individual: { reference: urnOf(signerId) } }] } : {}),
  };
  const tutor: Identified[] = tutorName
    ? [
        {
          resourceType: 'RelatedPerson',
          id: ids.tutor,
          patient: { reference: urnOf(ids.patient) },
          relationship: [{ text: 'Tutor(a)' }],
          name: [{ text: tutorName }],
        },
      ]
    : [];
  const refs = { patient: ids.patient, encounter: ids.encounter };
  const resources: Identified[] = [
    composition,
    patientOf(note, ids.patient),
    ...tutor,
    ...practitioners.values(),
    encounter,
    ...note.vitals.map((vital, index) => observationOf(vital, index, note, refs)),
    ...planResources(note.plan, { noteId: note.id, ...refs, practitioner: signerId, at }),
    ...links.map((link) => provenanceOf(note.id, ids.composition, link)),
  ];
  return {
    resourceType: 'Bundle',
    id: resourceUuid(note.id, 'document'),
    identifier: { system: SYSTEMS.uri, value: urnOf(resourceUuid(note.id, 'document')) },
    type: 'document',
    timestamp: composition.date as string,
    entry: resources.map(entryOf),
  };
}

/** A patient's record: a `collection` of note documents, in the order given (oldest first). */
export function recordCollection(documents: readonly FhirBundle[], timestamp: string): FhirBundle {
  return {
    resourceType: 'Bundle',
    type: 'collection',
    timestamp,
    entry: documents.map((document) => ({ fullUrl: urnOf(document.id as string), resource: document })),
  };
}
