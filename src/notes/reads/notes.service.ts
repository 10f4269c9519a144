import type { Db } from '../../platform/db/client.ts';
import type { NotesCaller } from '../callers.ts';
import { captureOf, toNoteBody, withBaseUrl } from '../store/note-view.ts';
import { prepareNoteStatus, prepareNoteWithSections, prepareRenderedNote } from '../store/notes.repo.ts';
import { noteOfClinic, ownNote } from '../store/own-note.ts';
import { listCountCache } from './list-count-cache.ts';
import { type ListNotesQuery, listNotes } from './list-notes.ts';
import { prepareNoteListVersion } from './note-list.repo.ts';

export interface NotesServiceDeps {
  db: Db;
  publicBaseUrl: string;
  /** Beyond this many matches a list reports a lower bound unless `count=exact` (NOTES_LIST_COUNT_LIMIT). */
  listCountLimit: number;
}

/** The note reads, bound once to their database and settings; the hot ones prepared once. */
export function notesService(deps: NotesServiceDeps) {
  const noteWithSections = prepareNoteWithSections(deps.db);
  const rendered = prepareRenderedNote(deps.db);
  const assemble = async (caller: NotesCaller, id: string) => {
    const { sections, signature, ...note } = ownNote(caller, await noteWithSections(id));
    return toNoteBody(note, deps.publicBaseUrl, sections, signature);
  };
  const noteStatus = prepareNoteStatus(deps.db);
  const list = {
    db: deps.db,
    publicBaseUrl: deps.publicBaseUrl,
    countLimit: deps.listCountLimit,
    counts: listCountCache(),
    listVersion: prepareNoteListVersion(deps.db),
  };
  return {
    list: (caller: NotesCaller, query: ListNotesQuery) => listNotes(caller, query, list),

    /**
     * The single-note read, as JSON text: the note as rendered when it last changed, one primary-key
     * lookup, nothing assembled. A note without a render (one of a bulk insert not changed since, or
     * written while triggers were off: docs/notes-reads.md) is assembled instead, never served from
     * something older.
     */
    async get(caller: NotesCaller, id: string): Promise<string> {
      const found = await rendered(id);
      if (found) return withBaseUrl(ownNote(caller, found).body, deps.publicBaseUrl);
      return JSON.stringify(await assemble(caller, id));
    },

    /** The note assembled from its rows: the reference the rendered note is checked against (test/notes/rendered-note.test.ts). */
    assemble,

    /** The polling answer: status, and while chunks are transcribed, the share done. */
    async status(caller: NotesCaller, id: string) {
      const row = ownNote(caller, await noteStatus(id));
      const progress = row.progress === null ? undefined : Math.round(Number(row.progress) * 1000) / 1000;
      return {
        status: row.status,
        valid: row.status !== 'failed',
        ...(progress === undefined ? {} : { progress }),
        ...(row.captureState ? { capture: captureOf(row) } : {}),
      };
    },

    /** The whole note, transcript included. */
    find: (caller: NotesCaller, id: string) => noteOfClinic(caller, id, deps.db),
  };
}

export type NotesService = ReturnType<typeof notesService>;
