import { toTimestamp } from '../../platform/http/schemas.ts';
import type { ReviewFlag } from '../../providers/drafting/port.ts';
import type { NoteSummaryRow, SectionFields, SignatureFields } from './notes.repo.ts';
import { EMPTY_PLAN, type Plan } from './plan.schemas.ts';
import type { Species, Vital } from './vitals.schemas.ts';

/** Notes made before templates existed were written in the six base sections: the built-in `padrao`. */
const BEFORE_TEMPLATES = { slug: 'padrao', name: 'Padrão' };

/**
 * The API's Note: snake_case, timestamps without fractions, transcription_url only when completed.
 * With `sections` (the single-note views) it also shows the signature, null while unsigned.
 */
export function toNoteBody(note: NoteSummaryRow, publicBaseUrl: string, sections?: SectionFields[], signature?: SignatureFields | null) {
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
    record_status: note.recordStatus,
    species: note.species as Species | null,
    template: note.template ? { slug: note.template.slug, name: note.template.name } : BEFORE_TEMPLATES,
    ...(note.captureState ? { capture: captureOf(note) } : {}),
    simulated: note.simulated,
    ...(sections
      ? {
          note_sections: completed ? sections.map(toSectionWithEvidence) : [],
          review_flags: completed ? (note.reviewFlags as ReviewFlag[]) : [],
          signature: signature ? toSignatureBody(signature) : null,
          vitals: completed ? (note.vitals as Vital[]) : [],
          audio: { available: note.audioDeletedAt === null, deleted_at: note.audioDeletedAt ? toTimestamp(note.audioDeletedAt) : null },
          visit_date: note.visitDate,
          // A note completed before plans existed shows empty lists (docs/notes-plan.md, "Notes from before").
          plan: completed ? ((note.plan as Plan | null) ?? EMPTY_PLAN) : null,
        }
      : {}),
    ...(note.transcriptionStatus === 'failed' && note.failure ? { failure: note.failure } : {}),
    created_at: toTimestamp(note.createdAt),
    updated_at: toTimestamp(note.updatedAt),
  };
}

// The rendered note's transcript URL is a path (note-render.sql): the first `"transcription_url"`
// key of the text is the note's own (the keys before it hold strings, whose quotes are escaped).
const TRANSCRIPTION_URL_KEY = '"transcription_url" : ';

/**
 * The rendered note as served: its transcript URL with this server's public base URL in front.
 * Text in, text out: nothing is parsed or serialised.
 */
export function withBaseUrl(renderedBody: string, publicBaseUrl: string): string {
  const at = renderedBody.indexOf(TRANSCRIPTION_URL_KEY);
  // null (not completed): nothing to add.
  if (at === -1 || renderedBody.charCodeAt(at + TRANSCRIPTION_URL_KEY.length) !== 34) return renderedBody;
  const path = at + TRANSCRIPTION_URL_KEY.length + 1;
  return renderedBody.slice(0, path) + publicBaseUrl + renderedBody.slice(path);
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

/** The signature as the API shows it (notes/record/): who signed, when, with which key, over which hash. */
export function toSignatureBody(signature: SignatureFields) {
  return {
    signed_by: { name: signature.signedByName, license: signature.signedByLicense },
    signed_at: toTimestamp(signature.signedAt),
    key_id: signature.keyId,
    flags_acknowledged: signature.flagsAcknowledged,
    content_sha256: signature.contentSha256,
  };
}

/** A live note's capture as the API shows it (`auto_closed` is `closed`, with a review flag once completed). */
export function captureOf(note: Pick<NoteSummaryRow, 'captureState' | 'captureParts' | 'audioDurationSeconds'>) {
  return {
    state: note.captureState === 'open' ? ('open' as const) : ('closed' as const),
    parts: note.captureParts,
    seconds: Math.round(note.audioDurationSeconds * 100) / 100,
  };
}
