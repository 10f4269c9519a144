import type { Db } from '../../platform/db/client.ts';
import { type ExportDocument, toExportDocument, toExportRecord } from '../export/export-document.ts';
import type { NoteRow, SectionRow } from '../store/notes.repo.ts';
import type { AmendmentRow, SignatureRow } from '../store/record.repo.ts';
import { recordBatch } from './prontuario.repo.ts';

/**
 * One note of a patient's record: its rows, for a format that needs more than the printed view (the
 * FHIR builder reads vitals' codes, the plan's items, every hash), and `document`, what the TXT and
 * PDF print.
 */
export interface RecordEntry {
  note: NoteRow;
  sections: SectionRow[];
  signature: SignatureRow | null;
  amendments: AmendmentRow[];
  document: ExportDocument;
}

/** Notes read per batch: a batch's rows are all a reader holds at once. */
export const RECORD_BATCH_SIZE = 20;

/** The notes with these ids, in this order, read `batchSize` at a time as the caller iterates. */
export async function* readRecord(ids: readonly string[], db: Db, batchSize = RECORD_BATCH_SIZE): AsyncGenerator<RecordEntry> {
  for (let from = 0; from < ids.length; from += batchSize) {
    const batchIds = ids.slice(from, from + batchSize);
    const batch = await recordBatch(batchIds, db);
    const byNote = <T extends { noteId: string }>(rows: T[]) => {
      const map = new Map<string, T[]>();
      for (const row of rows) map.set(row.noteId, [...(map.get(row.noteId) ?? []), row]);
      return map;
    };
    const notes = new Map(batch.notes.map((note) => [note.id, note]));
    const sections = byNote(batch.sections);
    const signatures = new Map(batch.signatures.map((signature) => [signature.noteId, signature]));
    const amendments = byNote(batch.amendments);
    for (const id of batchIds) {
      const note = notes.get(id);
      // Gone since the index was read would need another transaction; inside one it cannot happen.
      if (!note) continue;
      const noteSections = sections.get(id) ?? [];
      const signature = signatures.get(id) ?? null;
      const noteAmendments = amendments.get(id) ?? [];
      const document = {
        ...toExportDocument(note, noteSections),
        record: toExportRecord(signature ?? undefined, noteAmendments, noteSections),
      };
      yield { note, sections: noteSections, signature, amendments: noteAmendments, document };
    }
  }
}
