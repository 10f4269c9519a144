import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { CoveredState } from './covered-state.ts';

/** One link of a version 2 chain: the state after it, who made it and when, and for an amendment why and what came before. */
export interface LinkV2 {
  noteId: string;
  state: CoveredState;
  signedBy: { name: string; license: string };
  /** The API's form, `YYYY-MM-DDThh:mm:ssZ`. */
  signedAt: string;
  /** Present on an amendment: its reason and the hash of the link before it. */
  amendment?: { reason: string; previousSha256: string };
}

/**
 * The RFC 8785 canonical JSON a version 2 link hashes (docs/notes-record.md documents it field by
 * field): `hash_version`, the note id, the covered state, the link's own signer and time, and on an
 * amendment its reason and the previous link's hash — so a change to any earlier link changes the
 * `previous_sha256` every later one covers.
 */
export function canonicalV2(link: LinkV2): string {
  const { patient, sections, vitals, plan } = link.state;
  const canonical = canonicalize({
    hash_version: 2,
    note_id: link.noteId,
    patient: { name: patient.name, external_id: patient.external_id, species: patient.species },
    sections: sections.map(({ label, title, content, order }) => ({ label, title, content, order })),
    vitals,
    plan,
    signed_by: { name: link.signedBy.name, license: link.signedBy.license },
    signed_at: link.signedAt,
    ...(link.amendment ? { reason: link.amendment.reason, previous_sha256: link.amendment.previousSha256 } : {}),
  });
  if (canonical === undefined) throw new Error('nothing to canonicalise');
  return canonical;
}

/** Lowercase hex SHA-256 of the UTF-8 bytes of canonicalV2(link). */
export function linkSha256V2(link: LinkV2): string {
  return createHash('sha256').update(canonicalV2(link), 'utf8').digest('hex');
}
