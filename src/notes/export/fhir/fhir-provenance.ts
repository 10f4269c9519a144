import type { ChainLink } from '../../chain/verify-chain.ts';
import { EXTENSIONS } from './fhir-codes.ts';
import { type FhirResource, resourceUuid, urnOf } from './fhir-resource.ts';

// One Provenance per link of the note's hash chain (docs/notes-export.md, "FHIR R4"): the signer
// (agent → Practitioner), the time (`recorded`), an amendment's reason (`reason[0].text`), the hash,
// the hash version and the previous hash as extensions, and what the hash covered as a contained
// Binary (JSON) the Provenance's entity points at. With those, `record verify` recomputes the link.

export const COVERED_BINARY_ID = 'covered';

/** The Practitioner's id for a signer: one per name and licence within a note's document. */
export const practitionerUuid = (noteId: string, signer: { name: string; license: string }) =>
  resourceUuid(noteId, `practitioner:${signer.license}:${signer.name}`);

export function provenanceOf(noteId: string, composition: string, link: ChainLink): FhirResource & { id: string } {
  const covered = Buffer.from(JSON.stringify(link.state), 'utf8').toString('base64');
  return {
    resourceType: 'Provenance',
    id: resourceUuid(noteId, `link-${link.position}`),
    contained: [{ resourceType: 'Binary', id: COVERED_BINARY_ID, contentType: 'application/json', data: covered }],
    extension: [
      { url: EXTENSIONS.linkPosition, valueInteger: link.position },
      { url: EXTENSIONS.hashVersion, valueInteger: link.hashVersion },
      { url: EXTENSIONS.contentSha256, valueString: link.sha256 },
      ...(link.previousSha256 ? [{ url: EXTENSIONS.previousSha256, valueString: link.previousSha256 }] : []),
    ],
    target: [{ reference: urnOf(composition) }],
    occurredDateTime: link.signedAt,
    recorded: link.signedAt,
    ...(link.reason !== null ? { reason: [{ text: link.reason }] } : {}),
    activity: {
      coding: [
        {
          system: 'http://terminology.hl7.org/CodeSystem/v3-DataOperation',
          code: link.position === 0 ? 'CREATE' : 'UPDATE',
          display: link.position === 0 ? 'create' : 'revise',
        },
      ],
      text: link.position === 0 ? 'Assinatura' : `Adendo ${link.position}`,
    },
    agent: [
      {
        type: {
          coding: [{ system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type', code: 'author', display: 'Author' }],
        },
        who: { reference: urnOf(practitionerUuid(noteId, link.signedBy)) },
      },
    ],
    entity: [{ role: 'source', what: { reference: `#${COVERED_BINARY_ID}` } }],
  };
}
