import { noteOutcomes } from '../../src/notes/processing/note-outcome.ts';
import { claimForProcessing, insertNote } from '../../src/notes/store/notes.repo.ts';
import type { Plan } from '../../src/notes/store/plan.schemas.ts';
import { NO_NOTE_EVENTS } from '../../src/notes/webhooks/note-events.ts';
import type { Database } from '../../src/platform/db/client.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { SECTION_LABELS, SECTION_TITLES } from '../../src/providers/sectioning/port.ts';

// Completed notes written through the pipeline's own repo calls (no audio, no worker): the record's
// tests and benchmark (bench/record.ts) need many notes with chosen texts, vitals and plans, fast.

export interface CompletedNoteInput {
  clinicId: string;
  name: string;
  externalId: string;
  /** [title, text], in this order; a base section's title (`Anamnese`, `Tratamento`…) gets its label */
  sections: [string, string][];
  metadata?: { key: string; value: string }[];
  species?: string;
  vitals?: object[];
  plan?: Plan;
}

export async function completedNote(database: Database, input: CompletedNoteInput): Promise<string> {
  const db = database.db;
  const note = await insertNote(
    {
      clinicId: input.clinicId,
      name: input.name,
      gender: 'female',
      externalId: input.externalId,
      metadata: input.metadata ?? [],
      audioKey: 'unused',
      audioFormat: 'mp3',
      audioBytes: 1,
      audioSha256: '0'.repeat(64),
      audioDurationSeconds: 30,
    },
    db,
  );
  await claimForProcessing(note.id, db);
  const transcript = { text: '', language: 'pt', duration_seconds: 30, segments: [], provider: 'test', model: null };
  // The base section whose title it is (padrao's labels), so signing and amending see a known section.
  const labelOf = (title: string) => SECTION_LABELS.find((label) => SECTION_TITLES[label] === title) ?? 'observations';
  const sections = input.sections.map(([title, content]) => ({ label: labelOf(title), title, content, evidence: [] }));
  const outcomes = noteOutcomes({ db, events: NO_NOTE_EVENTS });
  // No expect here: bench/record.ts builds its patient with this too.
  if (!(await outcomes.complete(note.id, transcript, { style: 'verbatim' as const, sections, reviewFlags: [] }))) {
    throw new Error(`note ${note.id} did not complete`);
  }
  // What the completion would have read from the words: set as the extraction would have stored it.
  await db.execute(
    sql`update notes set species = ${input.species ?? null}, vitals = ${JSON.stringify(input.vitals ?? [])}::jsonb,
        plan = ${input.plan ? JSON.stringify(input.plan) : null}::jsonb where id = ${note.id}`,
  );
  return note.id;
}
