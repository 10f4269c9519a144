import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** What the hash covers: the note's clinical content and its original signature (docs/notes-record.md). */
export interface HashedContent {
  noteId: string;
  sections: readonly { label: string; title: string; content: string; order: string; position?: number }[];
  signedBy: { name: string; license: string };
  /** The API's form, `YYYY-MM-DDThh:mm:ssZ`. */
  signedAt: string;
}

/**
 * Hex SHA-256 of the RFC 8785 (JSON Canonicalization Scheme) form of
 * `{note_id, sections: [{label, title, content, order}], signed_by: {name, license}, signed_at}`,
 * the sections in the order the API shows them (numeric `order`, then as stored). Every value is a
 * string, so the canonical form is the object with its keys sorted, no whitespace, strings escaped
 * as JSON.stringify escapes them, encoded as UTF-8.
 */
export function contentSha256(content: HashedContent): string {
  const sections = [...content.sections]
    .sort((a, b) => Number(a.order) - Number(b.order) || (a.position ?? 0) - (b.position ?? 0))
    .map(({ label, title, content: text, order }) => ({ label, title, content: text, order }));
  const canonical = canonicalize({
    note_id: content.noteId,
    sections,
    signed_by: { name: content.signedBy.name, license: content.signedBy.license },
    signed_at: content.signedAt,
  });
  if (canonical === undefined) throw new Error('nothing to canonicalise');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
