import type { NoteRow } from '../store/notes.repo.ts';
import type { SettingsRow } from '../store/settings.repo.ts';
import type { Species } from '../store/vitals.schemas.ts';
import type { RecordHeading } from './pdf/record-pdf.ts';
import { tutorOf } from './tutor.ts';

type PatientFacts = Pick<NoteRow, 'species' | 'metadata'>;

/**
 * The heading of a printed record: the clinic's profile and the patient as its latest note names
 * them (a later visit corrects a misspelt name), `notes` consultations, issued now. Species and
 * tutor come from the latest of `notes` (oldest first) that says them: not every visit repeats them.
 */
export function recordHeading(
  latest: NoteRow,
  settings: SettingsRow | undefined,
  notes: readonly PatientFacts[],
  issuedAt = new Date(),
): RecordHeading {
  const newestFirst = [...notes].reverse();
  return {
    clinic: settings?.clinicProfile ?? null,
    patient: {
      name: latest.name,
      externalId: latest.externalId,
      species: (newestFirst.find((note) => note.species)?.species ?? null) as Species | null,
      gender: latest.gender,
      tutor: newestFirst.map((note) => tutorOf(note.metadata)).find((tutor) => tutor !== null) ?? null,
    },
    issuedAt: `${issuedAt.toISOString().slice(0, 19)}Z`,
    notes: notes.length,
  };
}
