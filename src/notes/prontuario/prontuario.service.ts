import { PassThrough, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../callers.ts';
import { attachmentDisposition } from '../export/filename.ts';
import { recordSha256 } from '../export/record-hash.ts';
import { recordHeading } from '../export/record-heading.ts';
import { recordNoteEvent } from '../history/record-event.ts';
import { findNote } from '../store/notes.repo.ts';
import { findSettings } from '../store/settings.repo.ts';
import { recordIndex } from './prontuario.repo.ts';
import { RECORD_FORMATS, type RecordFormatName } from './record-formats.ts';
import { readRecord } from './record-notes.ts';

export interface RecordFile {
  contentType: string;
  disposition: string;
  body: Readable;
}

/**
 * A patient's record (every completed note of that external id in the caller's clinic, oldest first)
 * in the chosen format, streamed; each note gets an `exported` event with the format.
 *
 * One REPEATABLE READ transaction holds everything: the index (which notes, their hashes), the
 * history events and every read of the notes, so the two passes of the PDF, the footer's hash and the
 * events all see the same record, and the events commit only with a complete file. The answer is
 * handed over once the file starts; the body ends only after the commit, so a client that has the
 * whole file also sees the history that says it was exported. The 404 comes before any byte.
 */
async function exportRecord({ db }: { db: Db }, caller: NotesCaller, externalId: string, format: RecordFormatName): Promise<RecordFile> {
  const chosen = RECORD_FORMATS[format];
  const out = new PassThrough();
  let answer: ((file: RecordFile) => void) | undefined;
  let started = false;
  const answered = new Promise<RecordFile>((resolve) => {
    answer = (file) => {
      started = true;
      resolve(file);
    };
  });
  const committed = db.transaction(
    async (tx) => {
      const index = await recordIndex(caller.clinicId, externalId, tx);
      const latest = index.at(-1) && (await findNote(index.at(-1)?.id ?? '', tx));
      if (!latest) throw new AppError('PATIENT_NOT_FOUND', 'No completed note of this patient in your clinic', { external_id: externalId });
      for (const row of index) await recordNoteEvent(tx, row.id, 'exported', caller, { format, record: true });
      const ids = index.map((row) => row.id);
      const rendered = await chosen.render({
        heading: recordHeading(latest, await findSettings(caller.clinicId, tx), index),
        sha256: recordSha256(index.map((row) => ({ noteId: row.id, sha256: row.latestSha256 }))),
        entries: () => readRecord(ids, tx),
      });
      rendered.body.pipe(out, { end: false });
      answer?.({
        contentType: chosen.contentType,
        disposition: attachmentDisposition(`prontuario-${externalId}`, new Date().toISOString().slice(0, 10), chosen.extension),
        body: out,
      });
      // Every note read: the transaction may end while a slow client still reads the last bytes.
      await rendered.drawn;
      return rendered.body;
    },
    { isolationLevel: 'repeatable read' },
  );
  committed
    .then(async (body) => {
      await finished(body);
      out.end();
    })
    // Once the reply streams the body it listens for its error; before that the refusal is the answer.
    .catch((error: unknown) => (started ? out.destroy(error instanceof Error ? error : new Error(String(error))) : out.destroy()));
  // Whichever comes first: the file (then the transaction's fate reaches the body) or a refusal.
  return Promise.race([answered, committed.then(() => answered)]);
}

/** Patients' records bound once to the database: `exportRecord(caller, externalId, format)`. */
export function prontuarioService(deps: { db: Db }) {
  return bindService(deps, { exportRecord });
}

export type ProntuarioService = ReturnType<typeof prontuarioService>;
