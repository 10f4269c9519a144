import { toTimestamp } from '../../platform/http/schemas.ts';
import type { AmendmentRow } from './record.repo.ts';

/** An amendment as the API (and the note.amended webhook) shows it. */
export function toAmendmentBody(row: AmendmentRow) {
  return {
    id: row.id,
    note_id: row.noteId,
    section_id: row.sectionId,
    label: row.label,
    previous_content: row.previousContent,
    content: row.content,
    reason: row.reason,
    signed_by: { name: row.signedByName, license: row.signedByLicense },
    created_at: toTimestamp(row.createdAt),
    content_sha256: row.contentSha256,
    previous_sha256: row.previousSha256,
    hash_version: row.hashVersion,
  };
}
