import type { Db } from '../../platform/db/client.ts';
import { toTimestamp } from '../../platform/http/schemas.ts';
import type { SectionRow } from '../store/notes.repo.ts';
import { sectionsOf } from '../store/notes.repo.ts';
import { type AmendmentRow, amendmentsOf, findCoveredRows, findSignature, type SignatureRow } from '../store/record.repo.ts';
import { type CoveredState, coveredSections, coveredStateOf } from './covered-state.ts';
import type { ChainLink, LinkState, NoteChain } from './verify-chain.ts';

/** A chain read from the database: the note as it stands is known whole. */
export interface StoredChain extends NoteChain {
  current: CoveredState;
  recordStatus: 'draft' | 'signed' | 'amended';
}

/** A note's chain as the database holds it, with the note as it stands (undefined when there is no such note). */
export async function noteChainOf(noteId: string, db: Db): Promise<StoredChain | undefined> {
  const rows = await findCoveredRows(noteId, db);
  if (!rows) return undefined;
  const sections = await sectionsOf(noteId, db);
  const signature = await findSignature(noteId, db);
  const amendments = signature ? await amendmentsOf(noteId, db) : [];
  return {
    noteId,
    links: chainLinks(signature, amendments, sections),
    current: coveredStateOf(rows, sections),
    recordStatus: rows.recordStatus,
  };
}

/**
 * The links of a chain from its rows. A version 2 link carries the state it covered; a version 1
 * link covered only the sections, which are the note's sections with every later amendment undone
 * (each keeps the text it replaced).
 */
export function chainLinks(
  signature: SignatureRow | undefined,
  amendments: readonly AmendmentRow[],
  sections: readonly SectionRow[],
): ChainLink[] {
  if (!signature) return [];
  const sectionsAfter = sectionsAfterEachLink(amendments, sections);
  const stateOf = (version: number, stored: Record<string, unknown> | null, position: number): LinkState =>
    version === 2 && stored ? (stored as unknown as CoveredState) : { sections: coveredSections(sectionsAfter[position]!) };
  const links: ChainLink[] = [
    {
      position: 0,
      hashVersion: signature.hashVersion,
      sha256: signature.contentSha256,
      previousSha256: null,
      signedBy: { name: signature.signedByName, license: signature.signedByLicense },
      signedAt: toTimestamp(signature.signedAt),
      reason: null,
      state: stateOf(signature.hashVersion, signature.coveredState, 0),
    },
  ];
  for (const amendment of amendments) {
    links.push({
      position: amendment.position,
      hashVersion: amendment.hashVersion,
      sha256: amendment.contentSha256,
      previousSha256: amendment.previousSha256,
      signedBy: { name: amendment.signedByName, license: amendment.signedByLicense },
      signedAt: toTimestamp(amendment.createdAt),
      reason: amendment.reason,
      state: stateOf(amendment.hashVersion, amendment.coveredState, amendment.position),
    });
  }
  return links;
}

/** The sections after the signature (index 0) and after each amendment (index n), undoing amendments from the last. */
function sectionsAfterEachLink(amendments: readonly AmendmentRow[], sections: readonly SectionRow[]): SectionRow[][] {
  const after: SectionRow[][] = [];
  let state = [...sections];
  after[amendments.length] = state;
  for (let index = amendments.length - 1; index >= 0; index--) {
    const amendment = amendments[index]!;
    state = state.map((section) => (section.id === amendment.sectionId ? { ...section, content: amendment.previousContent } : section));
    after[index] = state;
  }
  return after;
}
