import { createHash } from 'node:crypto';

// The hash a record's footer prints (docs/notes-prontuario.md, "The record's hash"): it fixes which
// notes the file holds, in which order, and each one's latest link of its hash chain (the last
// amendment's content_sha256, else the signature's). One line per note, oldest first,
// `<note id> <latest hash>\n`, with `rascunho` for a draft's missing hash; the SHA-256 of those
// UTF-8 bytes, lowercase hex. Anyone with the notes' ids and hashes (the API shows both) recomputes it.

export interface RecordLink {
  noteId: string;
  /** The note's latest chain hash; null for a draft. */
  sha256: string | null;
}

export const DRAFT_LINK = 'rascunho';

export function recordSha256(links: readonly RecordLink[]): string {
  const hash = createHash('sha256');
  for (const link of links) hash.update(`${link.noteId} ${link.sha256 ?? DRAFT_LINK}\n`, 'utf8');
  return hash.digest('hex');
}
