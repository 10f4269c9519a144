import type { TranscriptionStatus } from '../../platform/db/schema/notes.ts';
import type { ContentQuery } from './content-query.ts';

/** What a note list may filter on, already validated (list-notes.ts). */
export interface NoteFilters {
  transcription_status?: TranscriptionStatus;
  name?: string;
  from?: string;
  to?: string;
  external_id?: string;
  /** Words and phrases the notes' text must hold (`q`, parsed: content-query.ts). */
  content?: ContentQuery;
  /** Created at or after this instant (what `days` means, fixed once per request by the caller). */
  since?: Date;
  /** Created before this instant. */
  before?: Date;
}
