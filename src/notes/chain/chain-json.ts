import { z } from 'zod';
import type { CoveredState } from './covered-state.ts';
import type { StoredChain } from './note-chain.ts';
import type { LinkState, NoteChain } from './verify-chain.ts';

// The JSON export of the record (docs/notes-export.md, "JSON"): for each note its state as it
// stands and every link of its chain with what the link covered, in the canonical forms' own field
// names, so that `record verify` — or anyone with an RFC 8785 library — recomputes every hash from
// the file alone.

export const CHAIN_JSON_FORMAT = 'vetflow.record';

const Signer = z.object({ name: z.string(), license: z.string() });
const Section = z.object({ label: z.string(), title: z.string(), content: z.string(), order: z.string() });
const Vital = z.object({
  code: z.string(),
  value: z.union([z.number(), z.string()]),
  unit: z.string().nullable(),
  comparator: z.string().nullable(),
  text: z.string(),
  flag: z.string().nullable(),
});
const PlanItems = z.array(z.record(z.string(), z.unknown()));
const Plan = z.object({ medications: PlanItems, exams: PlanItems, vaccines: PlanItems, follow_ups: PlanItems });
const Patient = z.object({ name: z.string(), external_id: z.string().nullable(), species: z.string().nullable() });
const State = z.object({ patient: Patient, sections: z.array(Section), vitals: z.array(Vital), plan: Plan });

const Link = z.object({
  link: z.string(),
  position: z.number().int().nonnegative(),
  hash_version: z.union([z.literal(1), z.literal(2)]),
  content_sha256: z.string(),
  previous_sha256: z.string().nullable(),
  signed_by: Signer,
  signed_at: z.string(),
  reason: z.string().nullable(),
  /** Version 2: the whole state the link covered; version 1: its sections only. */
  covered: State.partial().required({ sections: true }),
});

const Note = z.object({ note_id: z.string(), record_status: z.string(), current: State, links: z.array(Link) });

export const ChainJson = z.object({ format: z.literal(CHAIN_JSON_FORMAT), version: z.literal(1), notes: z.array(Note) });
export type ChainJson = z.infer<typeof ChainJson>;

/** The JSON export of notes' chains as the database holds them. */
export function toChainJson(chains: readonly StoredChain[]): ChainJson {
  return {
    format: CHAIN_JSON_FORMAT,
    version: 1,
    notes: chains.map(({ recordStatus, current, ...chain }) => ({
      note_id: chain.noteId,
      record_status: recordStatus,
      current,
      links: chain.links.map((link) => ({
        link: link.position === 0 ? 'signature' : `amendment ${link.position}`,
        position: link.position,
        hash_version: link.hashVersion,
        content_sha256: link.sha256,
        previous_sha256: link.previousSha256,
        signed_by: link.signedBy,
        signed_at: link.signedAt,
        reason: link.reason,
        covered: link.state,
      })),
    })),
  };
}

/** The chains of a JSON export; a file that is not one is refused with the first field that is wrong. */
export function readChainJson(document: unknown): NoteChain[] {
  const parsed = ChainJson.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`not a vetflow JSON record export: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data.notes.map((note) => ({
    noteId: note.note_id,
    current: note.current as CoveredState,
    links: note.links.map((link) => ({
      position: link.position,
      hashVersion: link.hash_version,
      sha256: link.content_sha256,
      previousSha256: link.previous_sha256,
      signedBy: link.signed_by,
      signedAt: link.signed_at,
      reason: link.reason,
      state: link.covered as LinkState,
    })),
  }));
}
