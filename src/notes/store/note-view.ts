import { toTimestamp } from '../../platform/http/schemas.ts';
import type { ReviewFlag } from '../../providers/drafting/port.ts';
import type { NoteSummaryRow, SectionFields } from './notes.repo.ts';

/** The API's Note: snake_case, timestamps without fractions, transcription_url only when completed. */
export function toNoteBody(note: NoteSummaryRow, publicBaseUrl: string, sections?: SectionFields[]) {
  const completed = note.transcriptionStatus === 'completed';
  return {
    id: note.id,
    name: note.name,
    gender: note.gender,
    audio_name: note.audioName,
    transcription_status: note.transcriptionStatus,
    transcription_url: completed ? `${publicBaseUrl}/notes/v1/notes/${note.id}/transcription` : null,
    external_id: note.externalId,
    metadata: note.metadata,
    note_style: note.noteStyle,
    simulated: note.simulated,
    ...(sections
      ? {
          note_sections: completed ? sections.map(toSectionWithEvidence) : [],
          review_flags: completed ? (note.reviewFlags as ReviewFlag[]) : [],
        }
      : {}),
    ...(note.transcriptionStatus === 'failed' && note.failure ? { failure: note.failure } : {}),
    created_at: toTimestamp(note.createdAt),
    updated_at: toTimestamp(note.updatedAt),
  };
}

export function toSectionBody(section: SectionFields) {
  return {
    id: section.id,
    note_id: section.noteId,
    title: section.title,
    label: section.label,
    content: section.content,
    order: section.order,
    created_at: toTimestamp(section.createdAt),
    updated_at: toTimestamp(section.updatedAt),
  };
}

/** A section as the single-note fetch and the webhook show it: with the transcript time ranges behind it. */
function toSectionWithEvidence(section: SectionFields) {
  const { order, created_at, updated_at, ...head } = toSectionBody(section);
  return { ...head, evidence: section.evidence ?? [], order, created_at, updated_at };
}
