import type { CoveredState } from './covered-state.ts';
import { contentSha256 } from './hash-v1.ts';
import { linkSha256V2 } from './hash-v2.ts';

// A note's hash chain as any export carries it, and its verification with nothing but the chain:
// the database (note-chain.ts), the JSON export and the FHIR export all become a NoteChain, and
// `record verify` recomputes every link of every note (docs/notes-record.md, "Verifying").

export const HASH_VERSIONS = [1, 2] as const;
export type HashVersion = (typeof HASH_VERSIONS)[number];

/**
 * What a link covered of the note. A version 1 link covered only the sections (and the original
 * signature); a version 2 link the whole state.
 */
export type LinkState = Pick<CoveredState, 'sections'> & Partial<CoveredState>;

export interface ChainLink {
  /** 0 for the signature, n for the n-th amendment. */
  position: number;
  hashVersion: HashVersion;
  sha256: string;
  /** The link before (null on the signature). */
  previousSha256: string | null;
  signedBy: { name: string; license: string };
  signedAt: string;
  /** The amendment's reason (null on the signature). */
  reason: string | null;
  state: LinkState;
}

export interface NoteChain {
  noteId: string;
  /** The signature first, then the amendments in order; empty for a draft. */
  links: ChainLink[];
  /**
   * The note as it stands, as far as the source shows it: the last link must cover it. The
   * database gives the whole state; a FHIR bundle its patient and sections.
   */
  current: Partial<CoveredState>;
}

export interface BrokenLink {
  note_id: string;
  /** `signature` or `amendment n`. */
  link: string;
  /** What is wrong: the recomputed hash, the previous link, or the note as it stands. */
  problem: 'hash' | 'previous_sha256' | 'current_state' | 'order';
  expected: string;
  found: string;
}

export type Verification =
  | { notes: number; links: number; verified: true }
  | { notes: number; links: number; verified: false; broken: BrokenLink };

export const linkName = (position: number) => (position === 0 ? 'signature' : `amendment ${position}`);

/** The hash a link should carry, recomputed from the state given (its own, or the note as it stands). */
export function recomputeLink(noteId: string, links: readonly ChainLink[], index: number, state: LinkState): string {
  const link = links[index]!;
  if (link.hashVersion === 1) {
    // Version 1 covered the sections and the original signature, in every link.
    const signature = links[0]!;
    return contentSha256({ noteId, sections: state.sections, signedBy: signature.signedBy, signedAt: signature.signedAt });
  }
  const { patient, vitals, plan } = state;
  if (!patient || !vitals || !plan) throw new Error(`version 2 link ${linkName(link.position)} carries no full state`);
  return linkSha256V2({
    noteId,
    state: { patient, sections: state.sections, vitals, plan },
    signedBy: link.signedBy,
    signedAt: link.signedAt,
    ...(link.position > 0 ? { amendment: { reason: link.reason ?? '', previousSha256: link.previousSha256 ?? '' } } : {}),
  });
}

/** The first broken link of one note's chain, or null when every link holds. */
export function firstBrokenLink(chain: NoteChain): BrokenLink | null {
  const { noteId, links } = chain;
  for (const [index, link] of links.entries()) {
    const broken = (problem: BrokenLink['problem'], expected: string, found: string): BrokenLink => ({
      note_id: noteId,
      link: linkName(link.position),
      problem,
      expected,
      found,
    });
    if (link.position !== index) return broken('order', linkName(index), linkName(link.position));
    const previous = links[index - 1]?.sha256 ?? null;
    if (link.previousSha256 !== previous) return broken('previous_sha256', String(previous), String(link.previousSha256));
    const recomputed = recomputeLink(noteId, links, index, link.state);
    if (recomputed !== link.sha256) return broken('hash', recomputed, link.sha256);
  }
  const last = links.at(-1);
  if (last) {
    // The note as it stands must be what the last link covered: recompute it over the current values.
    const current = recomputeLink(noteId, links, links.length - 1, { ...last.state, ...chain.current });
    if (current !== last.sha256) {
      return { note_id: noteId, link: linkName(last.position), problem: 'current_state', expected: current, found: last.sha256 };
    }
  }
  return null;
}

/** Every link of every note recomputed; the first broken one named. */
export function verifyChains(chains: readonly NoteChain[]): Verification {
  const links = chains.reduce((total, chain) => total + chain.links.length, 0);
  for (const chain of chains) {
    const broken = firstBrokenLink(chain);
    if (broken) return { notes: chains.length, links, verified: false, broken };
  }
  return { notes: chains.length, links, verified: true };
}
